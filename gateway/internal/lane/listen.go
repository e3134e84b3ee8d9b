package lane

import (
	"net"
	"sync"
	"sync/atomic"
)

// Listen returns the listener the http.Server serves: inner's connections, and those the
// lane hands back. Closing it closes inner; a connection the lane would hand back after that
// is closed instead.
func (l *Lane) Listen(inner net.Listener) net.Listener {
	return &listener{Listener: inner, l: l, accepted: make(chan accepted)}
}

type listener struct {
	net.Listener
	l        *Lane
	accepted chan accepted
	pumping  sync.Once
	closing  sync.Once
	closeErr error
	err      atomic.Pointer[error] // inner's permanent Accept error
}

type accepted struct {
	c   net.Conn
	err error
}

// Accept returns the next connection: handed back by the lane, or accepted by inner.
func (ln *listener) Accept() (net.Conn, error) {
	ln.pumping.Do(func() { go ln.pump() })
	if e := ln.err.Load(); e != nil {
		select {
		case c := <-ln.l.handback:
			return c, nil
		default:
			return nil, *e
		}
	}
	select {
	case c := <-ln.l.handback:
		return c, nil
	case a := <-ln.accepted:
		return a.c, a.err
	case <-ln.l.closed:
		return nil, net.ErrClosed
	}
}

// pump accepts from inner for Accept, until inner fails for good. An error net/http retries
// (a timeout) is passed on and the pump goes on.
func (ln *listener) pump() {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				select {
				case ln.accepted <- accepted{err: err}:
				case <-ln.l.closed:
					return
				}
				continue
			}
			ln.err.Store(&err)
			select {
			case ln.accepted <- accepted{err: err}:
			case <-ln.l.closed:
			}
			return
		}
		select {
		case ln.accepted <- accepted{c: c}:
		case <-ln.l.closed:
			c.Close()
			return
		}
	}
}

// Close closes inner and stops the lane handing connections back. It is idempotent, as
// http.Server closes the listener it served again when Serve returns.
func (ln *listener) Close() error {
	ln.closing.Do(func() {
		ln.l.once.Do(func() { close(ln.l.closed) })
		ln.closeErr = ln.Listener.Close()
	})
	return ln.closeErr
}
