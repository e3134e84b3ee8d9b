// Package connlimit caps the connections an HTTP server holds open at once, so that clients
// that open connections and hold them (slowloris, or just very many) cannot take every file
// descriptor of the process, while its health probes still answer past the cap.
//
// netutil.LimitListener-style blocking in Accept would leave the connections past the cap in
// the kernel's queue, unanswered: a load balancer's probe would time out and take a healthy
// but busy replica out. Instead a connection past the cap is accepted and answered here, one
// request with a short deadline, read no further than a server reads of a request's header
// (http.DefaultMaxHeaderBytes): a probe path gets the probe handler's answer, anything else
// 503 with Retry-After saying which cap was reached. At most Spare such connections wait to be
// answered at once: a new one closes the oldest waiting, so that idle connections cannot keep
// a probe, which sends its request at once, from being read. So the process holds at most
// Max + Spare connections.
package connlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/agentpool/agentpool/internal/httpbuf"
)

const (
	// DefaultMax is the cap when Options.Max is 0.
	DefaultMax = 1024
	// Spare is how many connections past the cap wait to be answered at once.
	Spare = 32
	// spareTimeout bounds a connection past the cap: its request read and answered.
	spareTimeout = 5 * time.Second
)

// Options configure Listen.
type Options struct {
	// Max caps the connections the server holds (DefaultMax when 0; negative: no cap).
	Max int
	// Probe answers the ProbePaths past the cap (the server's own handler will do: it sees
	// only requests of those paths).
	Probe http.Handler
	// ProbePaths are the paths answered past the cap ("/healthz").
	ProbePaths []string
	// Key names the cap in the 503's message ("server.max_connections").
	Key string
}

// Listen returns ln with the cap of o (ln itself when there is none). Closing it closes ln.
func Listen(ln net.Listener, o Options) net.Listener {
	if o.Max == 0 {
		o.Max = DefaultMax
	}
	if o.Max < 0 {
		return ln
	}
	return &listener{Listener: ln, o: o, open: make(chan struct{}, o.Max)}
}

type listener struct {
	net.Listener
	o    Options
	open chan struct{} // a token per connection the server holds

	mu      sync.Mutex
	waiting []net.Conn // past the cap, being answered, oldest first
}

// Accept returns the next connection within the cap, answering or closing those past it.
func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.open <- struct{}{}:
			return &conn{Conn: c, release: func() { <-l.open }}, nil
		default:
		}
		l.mu.Lock()
		if len(l.waiting) >= Spare {
			_ = l.waiting[0].Close() // its answer ends, unread
			l.waiting = l.waiting[1:]
		}
		l.waiting = append(l.waiting, c)
		l.mu.Unlock()
		go l.answer(c)
	}
}

// answered removes c from the connections waiting.
func (l *listener) answered(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.waiting, c); i >= 0 {
		l.waiting = slices.Delete(l.waiting, i, i+1)
	}
}

// conn gives its place back when closed.
type conn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *conn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
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

// answer serves one request of c, a connection past the cap, and closes it.
func (l *listener) answer(c net.Conn) {
	defer c.Close()
	defer l.answered(c)
	_ = c.SetDeadline(time.Now().Add(spareTimeout))
	// http.ReadRequest bounds neither the request line nor the header: read no more than a
	// server reads of a request's header.
	req, err := http.ReadRequest(bufio.NewReader(io.LimitReader(c, http.DefaultMaxHeaderBytes)))
	if err != nil {
		return
	}
	w := &httpbuf.Response{}
	if slices.Contains(l.o.ProbePaths, req.URL.Path) && l.o.Probe != nil {
		l.o.Probe.ServeHTTP(w, req)
	} else {
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("Service Unavailable: %d connections are open, the most %s allows", l.o.Max, l.o.Key), http.StatusServiceUnavailable)
	}
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	w.Header().Set("Content-Length", fmt.Sprint(w.Body.Len()))
	w.Header().Set("Connection", "close")
	var out bytes.Buffer
	fmt.Fprintf(&out, "HTTP/1.1 %d %s\r\n", w.Status, http.StatusText(w.Status))
	_ = w.Header().Write(&out)
	out.WriteString("\r\n")
	out.Write(w.Body.Bytes())
	_, _ = c.Write(out.Bytes())
}
