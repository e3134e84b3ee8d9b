//go:build unix && !linux

package rawio

import "syscall"

// Off Linux the package makes no raw calls: the wrappers hand back what they are given.
const supported = false

func nonblocking(uintptr) bool { return false }

func sysRead(uintptr, []byte, bool) (int, syscall.Errno, bool)  { panic("rawio: no raw calls here") }
func sysWrite(uintptr, []byte, bool) (int, syscall.Errno, bool) { panic("rawio: no raw calls here") }

// sysIdle reports whether fd, a socket, is open with nothing to read.
func sysIdle(fd uintptr) bool {
	var b [1]byte
	n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return n <= 0 && (err == syscall.EAGAIN || err == syscall.EWOULDBLOCK)
}
