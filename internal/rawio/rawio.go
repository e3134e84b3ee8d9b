// Package rawio reads and writes non-blocking sockets and pipes with system calls that the Go
// scheduler is not told of, so that the hop's I/O does not wake the runtime's monitor thread.
//
// Every read or write through the os and net packages tells the scheduler it is entering a
// system call, in case the call blocks: when the process was idle a moment before, that wakes
// the runtime's monitor thread (sysmon), which then polls every 20µs for a while before it
// sleeps again. A process that answers one small request at a time, as a gateway between an
// MCP client and its server does, goes idle between nearly every two requests, and the
// monitor's waking cost about a sixth of its CPU per call. A read or write of a non-blocking
// descriptor cannot block, so it needs none of that: Conn, Listen and NewFile wrap
// descriptors whose reads and writes go to the kernel directly, and wait for readiness on the
// runtime's poller, with deadlines, as the os and net packages do.
//
// The contract is that of the net.Conn or *os.File wrapped: the same results, the same errors
// (the net package's *net.OpError for a connection, *fs.PathError for a file; io.EOF at the
// end; net.ErrClosed, fs.ErrClosed and os.ErrDeadlineExceeded inside them), and deadlines
// that bound the wait. One field differs: a connection's *net.OpError names the network of its
// local address ("tcp"), where the net package's names the one it was dialled or listened on
// ("tcp4", "tcp6"), which the connection does not tell.
//
// A File's pipe must stay non-blocking (File keeps the *os.File to itself, so that nothing
// calls its Fd, which would make it blocking): a raw read of a blocking pipe would hold its
// thread and processor until data came. A socket's calls ask for no wait each time
// (MSG_DONTWAIT), whatever its mode. The wrappers check when they are made, and hand back what
// they were given where they cannot help: off Linux, for a descriptor in blocking mode, or for
// a connection that is not the net package's own stream connection (*net.TCPConn, or
// *net.UnixConn of network "unix"). A type of another package that embeds one is a syscall.Conn
// too, but its Read and Write may do more than read and write the descriptor; and a datagram's
// empty read is no end of stream.
//
// Under the race detector the system calls go through the syscall package, whose read(2) and
// write(2) tell the detector of the order that I/O gives between goroutines. A socket's calls
// are then those too, without MSG_DONTWAIT: a socket made blocking after Conn waits in the
// kernel there, as the net package's would, holding a thread but not a processor.
package rawio

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// conn is a net.Conn whose Read and Write are raw.
type conn struct {
	net.Conn
	io sides
}

// Conn returns c with raw reads and writes, or c itself where it cannot (see the package doc).
// Closing what it returns closes c; its other net.Conn methods are c's. Of c's methods beyond
// net.Conn it has only CloseWrite and SyscallConn: not CloseRead, the TCP options, nor
// ReadFrom and WriteTo (so io.Copy through it never splices or sends a file), nor is it a
// *net.TCPConn to a type assertion.
func Conn(c net.Conn) net.Conn {
	if !netStream(c) {
		return c
	}
	rc := rawConn(c)
	if rc == nil {
		return c
	}
	rw := &conn{Conn: c}
	rw.io.init(rc, true)
	return rw
}

// netStream reports whether c is one of the net package's own stream connections, whose Read
// and Write are those of its descriptor.
func netStream(c net.Conn) bool {
	switch c := c.(type) {
	case *net.TCPConn:
		return true
	case *net.UnixConn:
		a, ok := c.LocalAddr().(*net.UnixAddr)
		return ok && a.Net == "unix"
	}
	return false
}

// rawConn returns x's RawConn when x is a syscall.Conn whose descriptor is non-blocking, on a
// system where the package makes raw calls; otherwise nil.
func rawConn(x any) syscall.RawConn {
	if !supported {
		return nil
	}
	sc, ok := x.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	ok = false
	if rc.Control(func(fd uintptr) { ok = nonblocking(fd) }) != nil || !ok {
		return nil
	}
	return rc
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.io.read(p, nil)
	if err != nil && err != io.EOF {
		err = c.opError("read", err)
	}
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	n, err := c.io.write(p, nil)
	if err != nil {
		err = c.opError("write", err)
	}
	return n, err
}

// opError is err as the net package's connections report it: a system call's error inside an
// *os.SyscallError, all inside a *net.OpError.
func (c *conn) opError(op string, err error) error {
	if errno, ok := err.(syscall.Errno); ok {
		err = os.NewSyscallError(op, errno)
	}
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// CloseWrite half-closes the connection, as c's own CloseWrite does.
func (c *conn) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	return cw.CloseWrite()
}

// SyscallConn returns the RawConn of the connection wrapped.
func (c *conn) SyscallConn() (syscall.RawConn, error) { return c.io.r.rc, nil }

// Listen returns ln whose accepted connections are Conn's. Closing it closes ln.
func Listen(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Conn(c), nil
}

// A File is an *os.File, one end of a pipe, with raw reads and writes when NewFile could
// make them (see the package doc). Close it, not the file: a read or write that a Close ends
// then fails with fs.ErrClosed, as the file's own would.
type File struct {
	f      *os.File
	io     sides // unset (no RawConn): f's own Read and Write
	closed atomic.Bool
}

// NewFile returns f with raw reads and writes where it can. f is the File's from then on: no
// other use of it, least of all its Fd, which would make a raw read of it block.
func NewFile(f *os.File) *File {
	rw := &File{f: f}
	if rc := rawConn(f); rc != nil {
		rw.io.init(rc, false)
	}
	return rw
}

// raw reports whether the file's reads and writes are raw.
func (f *File) raw() bool { return f.io.r.rc != nil }

// Read is the file's Read.
func (f *File) Read(p []byte) (int, error) {
	if !f.raw() {
		return f.f.Read(p)
	}
	n, err := f.io.read(p, &f.closed)
	if err != nil && err != io.EOF {
		err = &fs.PathError{Op: "read", Path: f.f.Name(), Err: err}
	}
	return n, err
}

// Write is the file's Write.
func (f *File) Write(p []byte) (int, error) {
	if !f.raw() {
		return f.f.Write(p)
	}
	n, err := f.io.write(p, &f.closed)
	if err != nil {
		err = &fs.PathError{Op: "write", Path: f.f.Name(), Err: err}
	}
	return n, err
}

// Close closes the file.
func (f *File) Close() error {
	f.closed.Store(true)
	return f.f.Close()
}

// sides are the states of a descriptor's raw read and raw write, kept with its wrapper and
// their RawConn callbacks bound once, so that a call allocates nothing. Each side's mutex
// holds one call at a time, as the poller's own lock of a descriptor's side does.
type sides struct {
	r, w side
}

type side struct {
	mu    sync.Mutex
	rc    syscall.RawConn
	sock  bool                              // the descriptor is a socket (sysRead)
	wait  func(func(fd uintptr) bool) error // rc.Read or rc.Write, bound
	fn    func(fd uintptr) bool             // readFD or writeFD, bound
	idle  func(fd uintptr) bool             // the read side's idleFD, bound
	p     []byte
	n     int
	errno syscall.Errno
}

// init readies s for rc's descriptor; sock: it is a socket.
func (s *sides) init(rc syscall.RawConn, sock bool) {
	s.r = side{rc: rc, sock: sock, wait: rc.Read}
	s.w = side{rc: rc, sock: sock, wait: rc.Write}
	s.r.fn, s.w.fn = s.r.readFD, s.w.writeFD
	s.r.idle = s.r.idleFD
}

// do runs the side's call on p until it is done, one call at a time: n is what it read or
// wrote, errno the system call's error, err the wait's.
func (s *side) do(p []byte) (n int, errno syscall.Errno, err error) {
	s.mu.Lock()
	s.p, s.n, s.errno = p, 0, 0
	err = s.wait(s.fn)
	n, errno = s.n, s.errno
	s.p = nil
	s.mu.Unlock()
	return n, errno, err
}

// idleFD sets n to 1 when the socket is open with nothing to read (sysIdle), else to 0.
func (s *side) idleFD(fd uintptr) bool {
	s.n = 0
	if sysIdle(fd) {
		s.n = 1
	}
	return true
}

// readFD is one read of p; false: nothing to read yet.
func (s *side) readFD(fd uintptr) bool {
	var again bool
	s.n, s.errno, again = sysRead(fd, s.p, s.sock)
	return !again
}

// writeFD writes what is left of p; false: no room for it yet.
func (s *side) writeFD(fd uintptr) bool {
	for s.n < len(s.p) {
		m, errno, again := sysWrite(fd, s.p[s.n:], s.sock)
		switch {
		case again:
			return false
		case errno != 0:
			s.errno = errno
			return true
		}
		s.n += m
	}
	return true
}

// read reads into p once data is there, as the os and net packages' Read: at least one byte,
// or io.EOF at the end, or the error of the system call (a syscall.Errno) or of the wait. An
// empty p reads nothing and waits for nothing, but fails once the descriptor is closed.
// closed, when not nil, says whether the file was closed: the wait's error is then
// fs.ErrClosed.
func (s *sides) read(p []byte, closed *atomic.Bool) (int, error) {
	if len(p) == 0 {
		if err := s.r.rc.Control(func(uintptr) {}); err != nil {
			return 0, waitError(err, closed)
		}
		return 0, nil
	}
	n, errno, err := s.r.do(p)
	switch {
	case err != nil:
		return 0, waitError(err, closed)
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// write writes all of p, waiting whenever the descriptor is full, as the os and net
// packages' Write: n is what was written when it fails. closed is read's.
func (s *sides) write(p []byte, closed *atomic.Bool) (int, error) {
	n, errno, err := s.w.do(p)
	switch {
	case err != nil:
		return n, waitError(err, closed)
	case errno != 0:
		return n, errno
	}
	return n, nil
}

// waitError is the error a RawConn's Read, Write or Control ended with, as the wrapped
// value's Read and Write report it: net's own error inside its *net.OpError (which the caller
// wraps again); a file's deadline as it is, and its closing as fs.ErrClosed.
func waitError(err error, closed *atomic.Bool) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Err
	}
	if closed != nil && closed.Load() && !errors.Is(err, os.ErrDeadlineExceeded) {
		return fs.ErrClosed
	}
	return err
}

// Idle reports whether c, a connection not being read, is still open with nothing to read,
// without waiting: a peer that closed it, or wrote to it, makes it not idle. Where it cannot
// tell (c has no descriptor, or off Unix), it reports true.
func Idle(c net.Conn) bool {
	var rc syscall.RawConn
	switch c := c.(type) {
	case *conn:
		r := &c.io.r
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.rc.Read(r.idle) == nil && r.n == 1
	case syscall.Conn:
		var err error
		if rc, err = c.SyscallConn(); err != nil {
			return false
		}
	default:
		return true
	}
	idle := false
	err := rc.Read(func(fd uintptr) bool {
		idle = sysIdle(fd)
		return true
	})
	return err == nil && idle
}
