//go:build !linux

package connpool

import "syscall"

// pdeathsig is Linux only; elsewhere a server outlives a killed agentpool unless its group's
// guard ends it (see process.guard).
const pdeathsig = false

func setPdeathsig(*syscall.SysProcAttr) {}
