package connpool

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// starter starts the pool's stdio servers so that they die with this process, even by
// SIGKILL. On Linux each server gets Pdeathsig SIGKILL, which the kernel sends when the
// thread that forked it exits — a thread, not the process: a child started from an arbitrary
// goroutine would be killed whenever the Go runtime retires that thread. So every start runs
// on one goroutine locked to its OS thread for as long as the pool lives; the thread ends
// (stop) only after every process the pool started is dead and reaped. Elsewhere start just
// starts the command.
//
// The goroutine is started by the first start, so a pool that never spawns has none.
type starter struct {
	mu      sync.Mutex // held for a whole start: the one thread starts one command at a time
	reqs    chan startReq
	done    chan struct{}
	stopped bool
}

type startReq struct {
	cmd  *exec.Cmd
	errc chan error
}

// start starts cmd (see starter). After stop it fails with ErrClosed.
func (s *starter) start(cmd *exec.Cmd) error {
	if !pdeathsig {
		return cmd.Start()
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	setPdeathsig(cmd.SysProcAttr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrClosed
	}
	if s.reqs == nil {
		s.reqs = make(chan startReq)
		s.done = make(chan struct{})
		go s.loop()
	}
	errc := make(chan error, 1)
	s.reqs <- startReq{cmd: cmd, errc: errc}
	return <-errc
}

// loop runs the starts on its own thread. It never unlocks the thread: when it returns the
// thread exits, and with it goes any child still alive (none, when the pool is done).
func (s *starter) loop() {
	runtime.LockOSThread()
	defer close(s.done)
	for r := range s.reqs {
		r.errc <- r.cmd.Start()
	}
}

// stop ends the starting thread, once no process the pool started is alive.
func (s *starter) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	if s.reqs != nil {
		close(s.reqs)
		<-s.done
	}
}
