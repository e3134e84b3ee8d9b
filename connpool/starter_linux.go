package connpool

import "syscall"

// pdeathsig: Linux kills a child when the thread that started it exits (see starter).
const pdeathsig = true

func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
