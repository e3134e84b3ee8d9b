//go:build !unix

package rawio

import "syscall"

// Off Linux the package makes no raw calls: the wrappers hand back what they are given.
const supported = false

func nonblocking(uintptr) bool { return false }

func sysRead(uintptr, []byte, bool) (int, syscall.Errno, bool)  { panic("rawio: no raw calls here") }
func sysWrite(uintptr, []byte, bool) (int, syscall.Errno, bool) { panic("rawio: no raw calls here") }

// sysIdle cannot tell here: a connection is taken as open.
func sysIdle(uintptr) bool { return true }
