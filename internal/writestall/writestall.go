package writestall

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// Default is the stall bound serve uses: the same as the gateway's bound on a stream's write.
const Default = 30 * time.Second

// Listen returns ln whose connections bound each write by stall (see the package doc); a
// stall of zero or less is Default. Closing it closes ln.
func Listen(ln net.Listener, stall time.Duration) net.Listener {
	if stall <= 0 {
		stall = Default
	}
	return &listener{Listener: ln, stall: stall}
}

type listener struct {
	net.Listener
	stall time.Duration
}

// Accept returns the next connection of the listener, its writes bounded.
func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, stall: l.stall}, nil
}

// conn sets its write deadline before each write. mu orders the deadlines set by Write and by
// the connection's user, so a deadline the user sets (one in the past to end a write, say) is
// never overwritten by a later one of the stall's.
type conn struct {
	net.Conn
	stall time.Duration

	mu    sync.Mutex
	user  time.Time // the write deadline the user set; zero: none
	armed time.Time // the stall's deadline set on Conn; zero: none (or the user's is set)
}

// Write writes p, failing once a stall passes with nothing written or the user's deadline
// passes.
func (c *conn) Write(p []byte) (int, error) {
	written := 0
	for {
		c.mu.Lock()
		user, _ := c.arm()
		c.mu.Unlock()
		n, err := c.Conn.Write(p[written:])
		written += n
		if err == nil || n == 0 || user || written == len(p) || !errors.Is(err, os.ErrDeadlineExceeded) {
			return written, err
		}
		// Progress within the stall: go on under a fresh deadline.
	}
}

// arm sets the connection's write deadline: between now+stall and now+stall+stall/16, or the
// user's when earlier. The slack lets a write within stall/16 of the last arming keep the
// deadline set, which saves updating the runtime's timer on every write. It says whether the
// user's was set. c.mu is held.
func (c *conn) arm() (user bool, err error) {
	d := time.Now().Add(c.stall)
	if !c.armed.IsZero() && !c.armed.Before(d) {
		return false, nil // the deadline set is far enough still (and before the user's)
	}
	next := d.Add(c.stall / 16)
	if !c.user.IsZero() && c.user.Before(next) {
		c.armed = time.Time{}
		return true, c.Conn.SetWriteDeadline(c.user)
	}
	c.armed = next
	return false, c.Conn.SetWriteDeadline(next)
}

// SetWriteDeadline sets the user's write deadline, which bounds writes besides the stall.
func (c *conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.user, c.armed = t, time.Time{}
	_, err := c.arm()
	return err
}

// SetDeadline sets the read deadline and the user's write deadline.
func (c *conn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// CloseWrite shuts down the writing side of the connection, as the raw one does (net/http
// does so before closing, so that the client reads its last answer); it fails when the raw
// connection has no CloseWrite.
func (c *conn) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	return cw.CloseWrite()
}
