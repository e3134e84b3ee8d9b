// Package httpcall is an HTTP/1.1 client transport for the requests of one origin: it sends a
// request and reads its response on the caller's goroutine, over plain TCP connections it
// keeps alive, where net/http's Transport hands each request to a write goroutine and each
// response back from a read goroutine of the connection. The connection pool passes MCP calls
// through to a streamable HTTP server on it.
//
// Transport.RoundTrip takes the requests to its scheme ("http") and host only, and gives every
// other request (another origin, a redirect elsewhere) to its Fallback. It does not follow
// redirects, negotiate compression, use a proxy or TLS: its user sends it only what needs none
// of them. A request's context bounds the request: its end closes the connection, and RoundTrip
// or the body's Read return an error wrapping the context's. A response's body must be read to
// its end (io.EOF) for its connection to be kept; closing it before closes the connection, as
// net/http does. A server that answers before it has read the whole request (a body too large)
// and closes the connection is answered with its response, as net/http's Transport answers it,
// not with the error of writing the rest. A connection is kept while the server has not closed
// it: one found closed when taken from the idle ones is dropped unused. A response's header may
// take 10 MB, as net/http's Transport allows by default. Informational responses (1xx but 101)
// before the answer are skipped; a connection whose answer had a status below 200 (101
// Switching Protocols, or one below 100) is not kept, nor one whose answer had both a
// Content-Length and chunked framing (read as chunked).
//
// It writes a request and reads a response itself, without req.Write or http.ReadResponse
// (net/textproto reads only a chunked body's trailer, which is rare). A request goes out byte
// for byte as req.Write writes it (request line, Host, User-Agent, Content-Length, the other
// fields sorted by name); one it cannot write exactly so (a body of unknown length, which goes
// chunked, a trailer, Close, CONNECT, a host that req.Write would clean) is written by
// req.Write. Before either, it refuses what net/http's Transport refuses, with its errors: a
// method or field name that is not a token, a field value with a control character other than a
// tab (CR and LF, which req.Write alone would turn into spaces).
//
// A response is read exactly as http.ReadResponse reads it, which a fuzz target
// checks byte for byte: the same responses refused, and of the others the same status,
// header (keys canonical, a key with a space before its colon kept as it is, folded lines
// joined by a space, bare LF line ends accepted), ContentLength, Close, TransferEncoding,
// Trailer, body and bytes left for the next response. Framing follows net/http/transfer.go:
// a response to HEAD and a 1xx, 204 or 304 one have no body; a Transfer-Encoding other than
// one "chunked" is refused (ignored before HTTP/1.1); with chunked, Content-Length is dropped;
// Content-Length fields that differ are refused, equal ones merged; without either, the body
// runs to the connection's end, which then closes. "Connection: close", and HTTP/1.0 without
// keep-alive, set Close. Chunks are decoded by net/http's own decoder (httputil).
package httpcall

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/agentpool/agentpool/internal/rawio"
)

// Transport is an http.RoundTripper (see the package doc). Its zero value is not usable:
// set Scheme, Host and Fallback. It is safe for concurrent use.
type Transport struct {
	// Scheme and Host (with its port, if any) are the origin whose requests the Transport
	// sends itself: "http" and "127.0.0.1:8080".
	Scheme, Host string
	// Dial opens a connection; nil uses a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Fallback sends the requests of other origins.
	Fallback http.RoundTripper
	// MaxIdle is how many idle connections are kept (at least 1).
	MaxIdle int

	netHTTP bool // req.Write and http.ReadResponse do the HTTP/1.1 (the benchmarks' baseline)

	mu     sync.Mutex
	idle   []*conn
	closed bool // CloseIdleConnections was called: no connection is kept any more
}

type conn struct {
	nc net.Conn
	lr limitedReader // what br reads: nc, a response's header bounded
	br *bufio.Reader
	cw connWriter // what bw writes to
	bw *bufio.Writer

	head head     // what a response's head is read into
	keys []string // a request's sorted field names
}

// maxHeaderBytes bounds what a response's header (with the informational responses before
// it) may take: net/http's Transport default.
const maxHeaderBytes = 10 << 20

// limitedReader reads r, at most n bytes while n is not negative.
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		return 0, errHeaderTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// connWriter writes to nc and records the first error of doing so.
type connWriter struct {
	nc  net.Conn
	err error
}

func (w *connWriter) Write(p []byte) (int, error) {
	n, err := w.nc.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

var errHeaderTooLarge = fmt.Errorf("httpcall: the response header exceeds %d bytes", maxHeaderBytes)

// RoundTrip sends req and returns its response.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != t.Scheme || req.URL.Host != t.Host {
		return t.Fallback.RoundTrip(req)
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		closeBody(req)
		return nil, err
	}
	if err := checkRequest(req); err != nil {
		closeBody(req)
		return nil, err
	}
	c, err := t.conn(ctx)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	// The end of ctx makes the connection's blocked reads and writes return at once; the
	// connection is not used again after.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	x := &exchange{body: body{t: t, c: c, stop: stop, ctx: ctx}}
	x.resp.Request = req
	if err := c.exchange(req, x, t.netHTTP); err != nil {
		stop()
		c.nc.Close()
		if ctx.Err() != nil {
			return nil, ctxError(ctx, err)
		}
		return nil, err
	}
	resp := &x.resp
	// After 101 Switching Protocols the connection speaks another protocol; net/http does
	// not use one again after any answer of a status below 200 either.
	x.body.keep = !x.broken && !x.body.f.mixed && !resp.Close && !req.Close && resp.StatusCode >= 200
	resp.Body = &x.body
	if x.body.f.kind == noBody {
		x.body.eof()
	}
	return resp, nil
}

// exchange is one request's response and its body, allocated together.
type exchange struct {
	resp   http.Response
	body   body
	broken bool // the connection failed as the request was written: it is not kept
}

// exchange writes req on c and reads its response into x, skipping informational ones.
// With netHTTP, req.Write and http.ReadResponse do the work instead.
func (c *conn) exchange(req *http.Request, x *exchange, netHTTP bool) error {
	var err error
	if !netHTTP && writable(req) {
		err = writeRequest(c.bw, req, &c.keys)
	} else {
		err = req.Write(c.bw)
	}
	if err == nil {
		err = c.bw.Flush()
	}
	if err != nil {
		if c.cw.err == nil {
			return err // the request's body failed, not the connection
		}
		// A server that answers before it has read the whole request (413, 401) closes the
		// connection after its answer: the answer is read if it came, as net/http does.
		x.broken = true
		if c.readResponse(req, x, netHTTP) != nil {
			return err
		}
		return nil
	}
	return c.readResponse(req, x, netHTTP)
}

// readResponse reads req's response into x, skipping informational ones.
func (c *conn) readResponse(req *http.Request, x *exchange, netHTTP bool) error {
	var err error
	c.lr.n = maxHeaderBytes
	for {
		if netHTTP {
			err = x.readNetHTTP(c.br, req)
		} else {
			err = readResponse(c.br, req.Method, &c.head, &x.resp, &x.body.f)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if code := x.resp.StatusCode; code/100 != 1 || code == http.StatusSwitchingProtocols {
			c.lr.n = -1 // the body is not bounded here
			return nil
		}
	}
}

// readNetHTTP reads the response with http.ReadResponse, its body framed by net/http.
func (x *exchange) readNetHTTP(br *bufio.Reader, req *http.Request) error {
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return err
	}
	x.resp = *resp
	x.body.f = frame{kind: netHTTPBody, rc: resp.Body}
	if resp.ContentLength == 0 && req.Method != http.MethodHead {
		x.body.f.kind = noBody
	}
	return nil
}

// aLongTimeAgo is a deadline in the past: I/O past it fails at once.
var aLongTimeAgo = time.Unix(1, 0)

// ctxError returns the error of a request that ctx ended.
func ctxError(ctx context.Context, err error) error {
	return errors.Join(context.Cause(ctx), err)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// conn returns an idle connection that the server has not closed, or a new one.
func (t *Transport) conn(ctx context.Context) (*conn, error) {
	for {
		t.mu.Lock()
		n := len(t.idle)
		if n == 0 {
			t.mu.Unlock()
			break
		}
		c := t.idle[n-1]
		t.idle[n-1] = nil
		t.idle = t.idle[:n-1]
		t.mu.Unlock()
		if c.br.Buffered() == 0 && rawio.Idle(c.nc) {
			return c, nil
		}
		c.nc.Close()
	}
	dial := t.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	// As net/http: an empty port is 80, and an IPv6 literal keeps one pair of brackets.
	u := url.URL{Host: t.Host}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	nc = rawio.Conn(nc)
	c := &conn{nc: nc, lr: limitedReader{r: nc, n: -1}, cw: connWriter{nc: nc}}
	c.br = bufio.NewReaderSize(&c.lr, 4<<10)
	c.bw = bufio.NewWriterSize(&c.cw, 4<<10)
	return c, nil
}

// put keeps c for a later request, or closes it.
func (t *Transport) put(c *conn) {
	t.mu.Lock()
	if !t.closed && len(t.idle) < max(t.MaxIdle, 1) {
		t.idle = append(t.idle, c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		c.nc.Close()
	}
}

// CloseIdleConnections closes the idle connections, and each connection in use once its
// response is done: none is kept after.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.closed = true
	t.mu.Unlock()
	for _, c := range idle {
		c.nc.Close()
	}
	if ct, ok := t.Fallback.(interface{ CloseIdleConnections() }); ok {
		ct.CloseIdleConnections()
	}
}

// body is a response's body: at its end its connection goes back to the idle ones.
type body struct {
	t    *Transport
	c    *conn
	f    frame
	stop func() bool
	ctx  context.Context
	keep bool // the connection may be used again after the body's end

	mu   sync.Mutex
	done bool // the connection was given back or closed
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.f.Read(p)
	if err == io.EOF {
		b.eof()
		return n, err
	}
	if err != nil {
		if b.ctx.Err() != nil {
			err = ctxError(b.ctx, err)
		}
		b.release(false)
	}
	return n, err
}

// eof gives the connection back: the response has been read.
func (b *body) eof() { b.release(b.keep) }

func (b *body) release(keep bool) {
	b.mu.Lock()
	done := b.done
	b.done = true
	b.mu.Unlock()
	if done {
		return
	}
	if b.stop() && keep {
		b.t.put(b.c)
		return
	}
	b.c.nc.Close()
}

// Close closes the connection if the body was not read to its end.
func (b *body) Close() error {
	b.release(false)
	return nil
}
