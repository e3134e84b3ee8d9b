package connpool

import (
	"net/http"
)

// headerTransport adds fixed headers to every request (ServerConfig.Headers).
type headerTransport struct {
	base    *http.Transport
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

// newHTTPClient returns a client with its own connection pool (closed with
// the MCP client, so no idle connection outlives it) that sends headers.
func newHTTPClient(headers map[string]string) (*http.Client, *http.Transport) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Transport: &headerTransport{base: base, headers: headers}}, base
}
