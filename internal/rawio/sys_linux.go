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
// hold its processor, and stop the world's collection, until data came. Under the race
// detector a socket's is read(2) too (raceIO).
func sysRead(fd uintptr, p []byte, sock bool) (n int, errno syscall.Errno, again bool) {
	return sysIO(fd, p, sock, false)
}

// sysWrite is write(2) of p, which is not empty, to fd, retried when interrupted; again: it
// would block. A socket's (sock) is sendto(2) with MSG_DONTWAIT (see sysRead).
func sysWrite(fd uintptr, p []byte, sock bool) (n int, errno syscall.Errno, again bool) {
	return sysIO(fd, p, sock, true)
}

// sysIO is sysRead, or sysWrite when write is set.
func sysIO(fd uintptr, p []byte, sock, write bool) (n int, errno syscall.Errno, again bool) {
	trap, flags := uintptr(syscall.SYS_READ), uintptr(0) // read(2) and write(2) ignore flags
	switch {
	case sock && write:
		trap, flags = syscall.SYS_SENDTO, syscall.MSG_DONTWAIT
	case sock:
		trap, flags = syscall.SYS_RECVFROM, syscall.MSG_DONTWAIT
	case write:
		trap = syscall.SYS_WRITE
	}
	for {
		var r uintptr
		if raceEnabled {
			r, errno = raceIO(fd, p, write)
		} else {
			r, _, errno = syscall.RawSyscall6(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), flags, 0, 0)
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

// raceIO is sysIO's call through the syscall package, which tells the race detector of the
// order the I/O gives: read(2) and write(2), a socket's too, since the package's recvfrom and
// sendto tell it nothing.
func raceIO(fd uintptr, p []byte, write bool) (uintptr, syscall.Errno) {
	var n int
	var err error
	if write {
		n, err = syscall.Write(int(fd), p)
	} else {
		n, err = syscall.Read(int(fd), p)
	}
	return uintptr(max(n, 0)), errnoOf(err)
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
