package launch

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// run applies payload and executes path with argv in this process's place.
func run(payload, path string, argv []string) {
	// The rules bind the thread that applies them; execve from that same thread carries
	// them into the server.
	runtime.LockOSThread()
	os.Unsetenv(Env)
	r, err := decode(payload)
	if err != nil {
		fail(err)
	}
	if err := restrict(r); err != nil {
		fail(err)
	}
	err = syscall.Exec(path, argv, os.Environ())
	fail(fmt.Errorf("execute %s: %w", path, err))
}
