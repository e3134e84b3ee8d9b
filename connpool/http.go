package connpool

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/agentpool/agentpool/connpool/internal/httpcall"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	_ http.RoundTripper = (*headerTransport)(nil)
	_ mcp.Transport     = (*lifetimeTransport)(nil)
)

// headerTransport adds fixed headers (ServerConfig.Headers) to every request
// to the configured URL's origin (scheme, host and port), and to no other: not
// to a redirect elsewhere (net/http follows redirects through this transport,
// and would drop only Authorization and cookies, only for another domain), nor
// to an SSE message endpoint the server names elsewhere. It reports requests that failed in transport (no HTTP response: refused,
// reset, dropped) to failed, unless the request's own context ended, and marks their errors
// ErrNotSent (no connection could be dialled) or ErrLost. It keeps
// the status of the first response (the initialize POST, or SSE's event-stream
// GET), which tells a start that cannot succeed (401, 403, 404) from one that
// might.
//
// It also keeps the URL's secrets out of every message. The SDK is given the
// URL redacted (endpoint, RedactURL), so its errors, its log lines and the
// *url.Error of net/http can only show that; the real user info and query are
// put back here, on the way out (restore).
type headerTransport struct {
	base    *http.Transport
	send    http.RoundTripper // sends the requests instead of base, if set (withSend)
	headers map[string]string
	failed  func(error)
	origin  *url.URL // the configured URL: Headers go to its scheme and host only

	real      *url.URL // the configured URL; nil when it holds nothing to hide
	shown     *url.URL // real, redacted: what the SDK requests
	shownAuth string   // the Authorization net/http derives from shown's user info

	auth *authorizer // OAuth (ServerConfig.Auth) for the requests to origin; nil without

	first       atomic.Bool  // a request has been sent
	firstStatus atomic.Int32 // the status of the first request's response; 0 if none
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	orig := req
	req = t.restore(req)
	if len(t.headers) > 0 && t.sameOrigin(req.URL) {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	first := t.first.CompareAndSwap(false, true)
	var resp *http.Response
	var err error
	var send http.RoundTripper = t.base
	if t.send != nil {
		send = t.send
	}
	if t.auth != nil && t.sameOrigin(req.URL) {
		resp, err = t.auth.roundTrip(send.RoundTrip, req)
	} else {
		resp, err = send.RoundTrip(req)
	}
	if resp != nil {
		if first {
			t.firstStatus.Store(int32(resp.StatusCode))
		}
		if resp.StatusCode == http.StatusNotFound && req.Method != http.MethodDelete &&
			req.Header.Get("Mcp-Session-Id") != "" && t.sameOrigin(req.URL) && t.failed != nil {
			// The server forgot the session. The go-sdk ends its session on it; the client is
			// ended first, before the caller hears of it, so that the next Get starts a new one.
			t.failed(fmt.Errorf("%s %s: %w (HTTP 404)", req.Method, RedactURL(orig.URL.String()), mcp.ErrSessionMissing))
		}
		// net/http's client names resp.Request.URL in the *url.Error of a redirect it
		// cannot follow: the request as the SDK made it, not as it was sent.
		resp.Request = orig
	}
	if err != nil {
		shown := RedactURL(orig.URL.String())
		if msg := err.Error(); strings.Contains(msg, req.URL.String()) {
			// The error names the URL sent, which is not the SDK's redacted one.
			err = redactedError{msg: strings.ReplaceAll(msg, req.URL.String(), shown), err: err}
		}
		if req.Context().Err() == nil {
			if t.failed != nil {
				t.failed(fmt.Errorf("%s %s: %w", req.Method, shown, err))
			}
			// No HTTP response: the request never left when its connection could not be
			// dialled, and may have reached the server otherwise.
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" {
				err = notSent(err)
			} else {
				err = lost(err)
			}
		}
	}
	return resp, err
}

// withSend returns a transport doing what t does (headers, secrets, OAuth, failures), its
// requests sent by send. Its first request is not the client's: firstStatus stays t's.
func (t *headerTransport) withSend(send http.RoundTripper) *headerTransport {
	return &headerTransport{base: t.base, send: send, headers: t.headers, failed: t.failed, origin: t.origin,
		real: t.real, shown: t.shown, shownAuth: t.shownAuth, auth: t.auth}
}

// leanTransport returns the transport of the calls passed through to t's server: an
// httpcall.Transport for a plain HTTP origin reached without a proxy, t itself otherwise.
func (t *headerTransport) leanTransport() (*headerTransport, *httpcall.Transport) {
	if t.origin == nil || t.origin.Scheme != "http" {
		return t, nil
	}
	if t.base.Proxy != nil {
		if p, err := t.base.Proxy(&http.Request{URL: t.origin}); err != nil || p != nil {
			return t, nil
		}
	}
	lean := &httpcall.Transport{Scheme: t.origin.Scheme, Host: t.origin.Host, Dial: t.base.DialContext,
		Fallback: t.base, MaxIdle: maxIdleConnsPerHost}
	return t.withSend(lean), lean
}

// sameOrigin reports whether u has the configured URL's scheme and host (with its port).
func (t *headerTransport) sameOrigin(u *url.URL) bool {
	return t.origin != nil && u.Scheme == t.origin.Scheme && u.Host == t.origin.Host
}

// endpoint returns the URL to give the SDK: the configured one, redacted.
func (t *headerTransport) endpoint(configured string) string {
	if t.shown == nil {
		return configured
	}
	return t.shown.String()
}

// restore returns req with the configured URL's user info and query in place of their
// redacted stand-ins: for a request to the configured host, the user info (net/http sends it
// as Basic authorization, which is replaced too, unless an Authorization of another origin is
// set); for a request to the configured path with the redacted query, the query. Other
// requests (SSE's message endpoint, whose query is the server's) keep theirs.
func (t *headerTransport) restore(req *http.Request) *http.Request {
	if t.real == nil || req.URL.Scheme != t.real.Scheme || req.URL.Host != t.real.Host {
		return req
	}
	u := *req.URL
	if u.User != nil {
		u.User = t.real.User
	}
	if u.Path == t.shown.Path && u.RawQuery == t.shown.RawQuery {
		u.RawQuery = t.real.RawQuery
	}
	req = req.Clone(req.Context())
	req.URL = &u
	if t.real.User != nil && req.Header.Get("Authorization") == t.shownAuth {
		pw, _ := t.real.User.Password()
		req.SetBasicAuth(t.real.User.Username(), pw)
	}
	return req
}

// redactedError is err with a message that does not show a secret; errors.Is and As still
// see err.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// maxIdleConnsPerHost is how many idle connections an HTTP server's client keeps.
const maxIdleConnsPerHost = 64

// newHTTPClient returns a client with its own connection pool (closed with
// the MCP client, so no idle connection outlives it) that sends headers, puts
// back the secrets of rawURL (see headerTransport) and calls failed when a
// request gets no HTTP response.
func newHTTPClient(rawURL string, headers map[string]string, failed func(error)) (*http.Client, *headerTransport) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	// Concurrent calls share one MCP session: keep as many idle connections as callers may
	// have had in flight, not net/http's default 2, which dialled anew for every other call
	// under load (and left the sockets in TIME_WAIT).
	base.MaxIdleConnsPerHost = maxIdleConnsPerHost
	ht := &headerTransport{base: base, headers: headers, failed: failed}
	ht.origin, _ = url.Parse(rawURL) // Validate has checked it
	if shown := RedactURL(rawURL); shown != rawURL {
		real, err1 := url.Parse(rawURL)
		s, err2 := url.Parse(shown)
		if err1 == nil && err2 == nil { // Validate has checked rawURL
			ht.real, ht.shown = real, s
			if s.User != nil {
				ht.shownAuth = "Basic " + base64.StdEncoding.EncodeToString([]byte(s.User.Username()+":"))
			}
		}
	}
	return &http.Client{Transport: ht}, ht
}

// permanentStatus reports whether status, answered to the first request of a
// start, means the start cannot succeed by trying again: the credentials are
// refused (401, 403) or there is no MCP endpoint at the URL (404).
func permanentStatus(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

// lifetimeTransport connects its inner transport with a context that lives
// as long as the client, not just the start: the SSE client ties its hanging
// GET to the Connect context, so a start-bounded context would cut the stream
// as soon as the start returned. The start context still aborts a Connect
// that has not finished in time.
type lifetimeTransport struct {
	inner  mcp.Transport
	life   context.Context
	cancel context.CancelFunc
}

func (t *lifetimeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stop := context.AfterFunc(ctx, t.cancel)
	conn, err := t.inner.Connect(t.life)
	if !stop() { // ctx ended while connecting: the stream is already cancelled
		if conn != nil {
			_ = conn.Close()
		}
		return nil, fmt.Errorf("connect: %w", ctx.Err())
	}
	return conn, err
}
