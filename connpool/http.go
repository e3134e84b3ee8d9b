package connpool

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	_ http.RoundTripper = (*headerTransport)(nil)
	_ mcp.Transport     = (*lifetimeTransport)(nil)
)

// headerTransport adds fixed headers to every request (ServerConfig.Headers)
// and reports requests that failed in transport (no HTTP response: refused,
// reset, dropped) to failed, unless the request's own context ended. It keeps
// the status of the first response (the initialize POST, or SSE's event-stream
// GET), which tells a start that cannot succeed (401, 403, 404) from one that
// might.
type headerTransport struct {
	base    *http.Transport
	headers map[string]string
	failed  func(error)

	first       atomic.Bool  // a request has been sent
	firstStatus atomic.Int32 // the status of the first request's response; 0 if none
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	first := t.first.CompareAndSwap(false, true)
	resp, err := t.base.RoundTrip(req)
	if first && resp != nil {
		t.firstStatus.Store(int32(resp.StatusCode))
	}
	if err != nil && req.Context().Err() == nil && t.failed != nil {
		t.failed(fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err))
	}
	return resp, err
}

// newHTTPClient returns a client with its own connection pool (closed with
// the MCP client, so no idle connection outlives it) that sends headers and
// calls failed when a request gets no HTTP response.
func newHTTPClient(headers map[string]string, failed func(error)) (*http.Client, *headerTransport) {
	ht := &headerTransport{base: http.DefaultTransport.(*http.Transport).Clone(), headers: headers, failed: failed}
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
