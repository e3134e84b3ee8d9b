package connpool

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentpool/agentpool/internal/rawio"
	"github.com/agentpool/agentpool/sandbox"
)

// process is one stdio server spawned in its own process group. Its pid is
// also its process group id.
//
// Goroutines: wait (reaps the direct child, then kills and reaps the rest of
// the group and closes the pipes so in-flight calls fail at once) and copy
// (drains stderr into the ring). Both end on their own once the group is dead;
// the owning client waits for them through exited and stderrDone.
type process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *rawio.File // our write end of the server's stdin
	stdout *rawio.File // our read end of the server's stdout
	stderr *ring

	reap bool // reap the group with wait4(-pgid) (subreaper mode)

	sandbox *sandbox.Launch // what confines it; nil: not sandboxed

	guard  *exec.Cmd // the group's guard (see startGuard); nil if it could not start
	guardW *os.File  // our write end of the guard's stdin: closing it ends the group

	exited     chan struct{} // closed when the direct child is reaped and the group killed (and reaped)
	exitErr    error         // valid after exited
	stderrDone chan struct{} // closed when stderr reached EOF

	termOnce sync.Once
}

// spawn starts cfg.Command in a new process group with its stdin, stdout and
// stderr on pipes, and the group's guard; confined by cfg.Sandbox when set (and
// not off), through the sandbox's entry point. start starts a command (the
// pool's starter); goStart starts the process goroutines (tracked by the pool).
func spawn(cfg ServerConfig, stderrBytes int, reap bool, start func(*exec.Cmd) error, goStart func(func())) (*process, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, err
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Cwd
	cmd.Env = serverEnv(cfg)
	// *os.File values make exec pass the descriptors directly: no copying
	// goroutines, so Wait returns when the child exits even if a grandchild
	// still holds a pipe open.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var launch *sandbox.Launch
	if sb := cfg.Sandbox; sb != nil && !sb.Off {
		launch, err = sandbox.Command(sandbox.Resolve(cfg.label(), sb, cmd), cmd)
		if err != nil {
			closeAll(stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW)
			return nil, err
		}
	}
	err = start(cmd)
	closeAll(stdinR, stdoutW, stderrW) // the child's ends
	if launch != nil {
		launch.Started() // the child's copy of the rule set is its own
	}
	if err != nil {
		closeAll(stdinW, stdoutR, stderrR)
		if launch != nil {
			launch.Cleanup()
		}
		return nil, err
	}
	p := &process{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		stdin:      rawio.NewFile(stdinW),
		stdout:     rawio.NewFile(stdoutR),
		stderr:     newRing(stderrBytes),
		sandbox:    launch,
		reap:       reap,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	p.guard, p.guardW = startGuard(p.pid)
	goStart(func() {
		defer close(p.stderrDone)
		_, _ = io.Copy(p.stderr, stderrR)
		stderrR.Close()
	})
	goStart(p.wait)
	return p, nil
}

// startGuard starts the guard of process group pgid: a shell in that group that waits for
// EOF on a pipe whose only write end this process holds, then SIGKILLs its group. When this
// process dies, however it dies, the pipe closes and the group goes with it: the grandchildren
// too (a server behind `sh -c` or npx), which Pdeathsig, set on the direct child only, does
// not reach. Being in the group keeps its id from being reused while the guard waits, and the
// pool's own group kills end the guard with the rest. It returns nils when the guard cannot
// start (no /bin/sh, or the leader already gone): the direct child still has Pdeathsig.
func startGuard(pgid int) (*exec.Cmd, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil
	}
	g := exec.Command("/bin/sh", "-c", "read x; kill -KILL 0")
	g.Stdin = r
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = g.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, nil
	}
	return g, w
}

// permanentSpawnError reports whether err, from starting a command, means
// that starting it again cannot succeed until something outside changes: the
// command (or its cwd) does not exist, or may not be executed, or the kernel
// lacks what its required sandbox needs.
func permanentSpawnError(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, sandbox.ErrUnavailable)
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

func (p *process) wait() {
	p.exitErr = p.cmd.Wait()
	// The direct child is gone. Whatever else is in its group (the real
	// server behind an sh -c or npx wrapper) goes too, and our pipe ends
	// close so every call in flight fails now instead of hanging.
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	p.stdin.Close()
	p.stdout.Close()
	if p.guard != nil {
		_ = p.guard.Wait() // killed with the group; reaped before reapGroup could take it
		p.guardW.Close()
	}
	if p.reap {
		reapGroup(p.pid, 5*time.Second)
	}
	if p.sandbox != nil {
		p.sandbox.Cleanup()
	}
	close(p.exited)
}

// reapGroup reaps our children in process group pgid (grandchildren adopted
// by this subreaper) until none is left or the deadline passes. It must run
// only after the group leader has been reaped by cmd.Wait, or it could steal
// the leader's exit status.
func reapGroup(pgid int, bound time.Duration) {
	deadline := time.Now().Add(bound)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD: none of our children is in the group
			return
		case pid > 0:
			continue
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// terminate ends the whole group: close stdin, SIGTERM the group, wait up to
// grace for the direct child, SIGKILL the group, and wait until the wait
// goroutine has reaped it. It is idempotent and safe for concurrent use; every
// caller returns once the group is dead.
func (p *process) terminate(grace time.Duration) {
	p.termOnce.Do(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		p.stdin.Close()
		_ = syscall.Kill(-p.pid, syscall.SIGTERM)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.exited:
			return
		case <-t.C:
		}
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	})
	<-p.exited
}

// describeExit renders how the process ended, for error messages.
func (p *process) describeExit() string {
	select {
	case <-p.exited:
	default:
		return "still running"
	}
	var ee *exec.ExitError
	if errors.As(p.exitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("pid %d killed by signal %v", p.pid, ws.Signal())
		}
		return fmt.Sprintf("pid %d exited with code %d", p.pid, ee.ExitCode())
	}
	if p.exitErr != nil {
		return fmt.Sprintf("pid %d: %v", p.pid, p.exitErr)
	}
	return fmt.Sprintf("pid %d exited with code 0", p.pid)
}
