package rawio

import (
	"syscall"
	"unsafe"
)

const supported = true

// nonblocking reports whether fd is in non-blocking mode.
func nonblocking(fd uintptr) bool {
	fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	return e == 0 && fl&syscall.O_NONBLOCK != 0
}

// sysRead is read(2) of fd into p, which is not empty, retried when interrupted; again: it
// would block. A socket's (sock) is recvfrom(2) with MSG_DONTWAIT, which cannot block even
// where the descriptor was made blocking since it was wrapped: a raw call that blocked would
// hold its processor, and stop the world's collection, until data came.
func sysRead(fd uintptr, p []byte, sock bool) (n int, errno syscall.Errno, again bool) {
	for {
		var r uintptr
		switch {
		case raceEnabled:
			n, err := syscall.Read(int(fd), p)
			r, errno = uintptr(max(n, 0)), errnoOf(err)
		case sock:
			r, _, errno = syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), syscall.MSG_DONTWAIT, 0, 0)
		default:
			r, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		switch errno {
		case 0:
			return int(r), 0, false
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, 0, true
		}
		return 0, errno, false
	}
}

// sysWrite is write(2) of p, which is not empty, to fd, retried when interrupted; again: it
// would block. A socket's (sock) is sendto(2) with MSG_DONTWAIT (see sysRead).
func sysWrite(fd uintptr, p []byte, sock bool) (n int, errno syscall.Errno, again bool) {
	for {
		var r uintptr
		switch {
		case raceEnabled:
			n, err := syscall.Write(int(fd), p)
			r, errno = uintptr(max(n, 0)), errnoOf(err)
		case sock:
			r, _, errno = syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), syscall.MSG_DONTWAIT, 0, 0)
		default:
			r, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		switch errno {
		case 0:
			return int(r), 0, false
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, 0, true
		}
		return 0, errno, false
	}
}

// sysIdle reports whether fd, a socket, is open with nothing to read: a non-blocking recv(2)
// of one byte, left unread, finds none and no end.
func sysIdle(fd uintptr) bool {
	var b [1]byte
	for {
		var errno syscall.Errno
		if raceEnabled {
			_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			errno = errnoOf(err)
		} else {
			_, _, errno = syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1, syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		}
		if errno != syscall.EINTR {
			return errno == syscall.EAGAIN
		}
	}
}

// errnoOf is err's Errno: 0 for nil.
func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	return err.(syscall.Errno)
}
