package connpool

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	_ http.RoundTripper = (*headerTransport)(nil)
	_ mcp.Transport     = (*lifetimeTransport)(nil)
)

// headerTransport adds fixed headers to every request (ServerConfig.Headers)
// and reports requests that failed in transport (no HTTP response: refused,
// reset, dropped) to failed, unless the request's own context ended.
type headerTransport struct {
	base    *http.Transport
	headers map[string]string
	failed  func(error)
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil && req.Context().Err() == nil && t.failed != nil {
		t.failed(fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err))
	}
	return resp, err
}

// newHTTPClient returns a client with its own connection pool (closed with
// the MCP client, so no idle connection outlives it) that sends headers and
// calls failed when a request gets no HTTP response.
func newHTTPClient(headers map[string]string, failed func(error)) (*http.Client, *http.Transport) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Transport: &headerTransport{base: base, headers: headers, failed: failed}}, base
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
