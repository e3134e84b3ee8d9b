package sandbox

import (
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// uringMPTCP connects to addr (IPv4 host:port) with a multipath TCP socket created through
// io_uring (IORING_OP_SOCKET), which seccomp does not see.
func uringMPTCP(addr string) error {
	const (
		sysSetup = 425
		sysEnter = 426
		opSocket = 45
		offSQEs  = 0x10000000
	)
	var p struct {
		sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
		resv                                                                   [3]uint32
		sqOff                                                                  struct {
			head, tail, mask, entries, flags, dropped, array, resv1 uint32
			userAddr                                                uint64
		}
		cqOff struct {
			head, tail, mask, entries, overflow, cqes, flags, resv1 uint32
			userAddr                                                uint64
		}
	}
	fd, _, errno := syscall.Syscall(sysSetup, 1, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return fmt.Errorf("io_uring_setup: %w", errno)
	}
	defer syscall.Close(int(fd))
	size := max(int(p.sqOff.array+p.sqEntries*4), int(p.cqOff.cqes+p.cqEntries*16))
	ring, err := syscall.Mmap(int(fd), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("mmap ring: %w", err)
	}
	defer syscall.Munmap(ring)
	sqes, err := syscall.Mmap(int(fd), offSQEs, int(p.sqEntries*64), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("mmap sqes: %w", err)
	}
	defer syscall.Munmap(sqes)
	u32 := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	sqe := sqes[:64]
	clear(sqe)
	sqe[0] = opSocket
	*(*int32)(unsafe.Pointer(&sqe[4])) = syscall.AF_INET
	*(*uint64)(unsafe.Pointer(&sqe[8])) = syscall.SOCK_STREAM
	*u32(sqe, 24) = 262 // IPPROTO_MPTCP
	tail := atomic.LoadUint32(u32(ring, p.sqOff.tail))
	*u32(ring, p.sqOff.array+(tail&*u32(ring, p.sqOff.mask))*4) = 0
	atomic.StoreUint32(u32(ring, p.sqOff.tail), tail+1)
	if _, _, errno := syscall.Syscall6(sysEnter, fd, 1, 1, 1, 0, 0); errno != 0 {
		return fmt.Errorf("io_uring_enter: %w", errno)
	}
	head := atomic.LoadUint32(u32(ring, p.cqOff.head))
	cqe := p.cqOff.cqes + (head&*u32(ring, p.cqOff.mask))*16
	res := *(*int32)(unsafe.Pointer(&ring[cqe+8]))
	atomic.StoreUint32(u32(ring, p.cqOff.head), head+1)
	if res < 0 {
		return fmt.Errorf("io_uring socket: %w", syscall.Errno(-res))
	}
	defer syscall.Close(int(res))
	host, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	sa := &syscall.SockaddrInet4{Port: n}
	copy(sa.Addr[:], net.ParseIP(host).To4())
	return syscall.Connect(int(res), sa)
}
