package connpool

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
)

// post sends one JSON-RPC message of the session. It hands the request to hc's transport
// itself, as hc.Do would, without Do's per-request work (a copy of the header and of the URL,
// for redirects that do not come): the URL is parsed once and the header, the same for every
// message of the session, is shared by them, which the http.RoundTripper contract allows (a
// RoundTripper does not modify its request). A redirect is followed by http.Client.Do from the
// response received (follow), so the server that redirected sees the message once, as through
// Do. A client with a cookie jar or a timeout is always used through Do.
func (h *rawHTTP) post(ctx context.Context, body []byte) (*http.Response, error) {
	h.prepared.Do(h.prepare)
	rt := h.hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if h.url == nil || h.hc.Jar != nil || h.hc.Timeout != 0 {
		return h.postDo(ctx, body)
	}
	req := (&http.Request{
		Method:        http.MethodPost,
		URL:           h.url,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h.header,
		Body:          io.NopCloser(bytes.NewReader(body)),
		GetBody:       func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil },
		ContentLength: int64(len(body)),
		Host:          h.url.Host,
	}).WithContext(ctx)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		// As hc.Do reports it: a *url.Error naming the method and the URL, without a password.
		return nil, &url.Error{Op: "Post", URL: h.url.Redacted(), Err: err}
	}
	if resp == nil {
		return nil, &url.Error{Op: "Post", URL: h.url.Redacted(), Err: errors.New("http: RoundTripper returned a nil *Response with a nil error")}
	}
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	if redirected(resp) {
		return h.follow(ctx, body, rt, resp)
	}
	return resp, nil
}

// follow follows resp, a redirect answering the message body, as hc.Do follows one: a Client
// with hc's redirect rules is handed resp as the answer to its first request and sends the
// next (to the place resp names, a 301, 302 or 303 as a GET) on rt. The message is not sent
// again to the server that redirected: a 303 (or 301, 302) may answer a POST it acted on.
func (h *rawHTTP) follow(ctx context.Context, body []byte, rt http.RoundTripper, resp *http.Response) (*http.Response, error) {
	replay := &redirectReplay{resp: resp, rt: rt}
	r, err := h.postVia(ctx, body, &http.Client{Transport: replay, CheckRedirect: h.hc.CheckRedirect})
	if replay.resp != nil {
		resp.Body.Close() // never handed over: the request could not be made
	}
	return r, err
}

// redirectReplay is an http.RoundTripper whose first request gets resp, and the others rt's
// answer. A Client uses it from one goroutine.
type redirectReplay struct {
	resp *http.Response
	rt   http.RoundTripper
}

func (a *redirectReplay) RoundTrip(req *http.Request) (*http.Response, error) {
	resp := a.resp
	if resp == nil {
		return a.rt.RoundTrip(req)
	}
	a.resp = nil
	if req.Body != nil {
		req.Body.Close()
	}
	return resp, nil
}

// redirected reports whether resp is a redirect http.Client follows.
func redirected(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
}

// prepare parses the endpoint and makes the header of the session's posts.
func (h *rawHTTP) prepare() {
	u, err := url.Parse(h.endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return // Do reports it, as before
	}
	h.url = u
	h.header = h.newHeader()
	if u.User != nil {
		// As hc.Do sends the URL's user info (headerTransport puts the real one in its place).
		pw, _ := u.User.Password()
		(&http.Request{Header: h.header}).SetBasicAuth(u.User.Username(), pw)
	}
}

// newHeader is the header of one of the session's posts.
func (h *rawHTTP) newHeader() http.Header {
	hd := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	if h.session != "" {
		hd["Mcp-Session-Id"] = []string{h.session}
	}
	if h.version != "" {
		hd["Mcp-Protocol-Version"] = []string{h.version}
	}
	return hd
}

// postDo sends one JSON-RPC message of the session through hc.Do.
func (h *rawHTTP) postDo(ctx context.Context, body []byte) (*http.Response, error) {
	return h.postVia(ctx, body, h.hc)
}

// postVia sends one JSON-RPC message of the session through hc.Do.
func (h *rawHTTP) postVia(ctx context.Context, body []byte, hc *http.Client) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = h.newHeader()
	return hc.Do(req)
}
