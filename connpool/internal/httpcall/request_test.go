package httpcall

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// writeBoth writes the request that mk makes with writeRequest and with req.Write.
func writeBoth(t *testing.T, mk func() *http.Request) (got, want string, gotErr, wantErr error) {
	t.Helper()
	var g, w bytes.Buffer
	bw := bufio.NewWriterSize(&g, 4<<10)
	req := mk()
	if !writable(req) {
		t.Fatalf("%s %s: not writable", req.Method, req.URL)
	}
	var keys []string
	gotErr = writeRequest(bw, req, &keys)
	bw.Flush()
	wantErr = mk().Write(&w)
	return g.String(), w.String(), gotErr, wantErr
}

func newRequest(method, u string, body io.Reader, fields ...string) func() *http.Request {
	return func() *http.Request {
		if s, ok := body.(*strings.Reader); ok {
			body = strings.NewReader(readAll(s))
		}
		req, err := http.NewRequest(method, u, body)
		if err != nil {
			panic(err)
		}
		for i := 0; i+1 < len(fields); i += 2 {
			req.Header.Add(fields[i], fields[i+1])
		}
		return req
	}
}

// readAll returns what s holds, leaving s as it was.
func readAll(s *strings.Reader) string {
	b, _ := io.ReadAll(io.NewSectionReader(s, 0, s.Size()))
	return string(b)
}

// The requests it writes itself are written byte for byte as req.Write writes them.
func TestWriteRequestAsNetHTTP(t *testing.T) {
	for name, mk := range map[string]func() *http.Request{
		"MCP POST": newRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(`{"jsonrpc":"2.0"}`),
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream",
			"Mcp-Session-Id", "abc", "Mcp-Protocol-Version", "2025-06-18"),
		"GET without body":     newRequest(http.MethodGet, "http://h/p?q=1&r", nil, "Accept", "text/event-stream"),
		"DELETE without body":  newRequest(http.MethodDelete, "http://h:1/", nil),
		"POST without body":    newRequest(http.MethodPost, "http://h/", nil),
		"PUT with NoBody":      newRequest(http.MethodPut, "http://h/", http.NoBody),
		"own User-Agent":       newRequest(http.MethodGet, "http://h/", nil, "User-Agent", "  me/1 \t"),
		"empty User-Agent":     newRequest(http.MethodGet, "http://h/", nil, "User-Agent", ""),
		"values trimmed, kept": newRequest(http.MethodGet, "http://h/", nil, "X-B", " 1 ", "X-A", "2", "X-B", "\t3", "X-Empty", ""),
		"excluded fields":      newRequest(http.MethodPost, "http://h/", strings.NewReader("x"), "Host", "other", "Content-Length", "9", "Trailer", "X"),
		"escaped path":         newRequest(http.MethodGet, "http://h/a%20b/c%2Fd?x=%00", nil),
		"IPv6 host":            newRequest(http.MethodGet, "http://[::1]:8080/", nil),
		"body not in memory": func() *http.Request {
			req := newRequest(http.MethodPost, "http://h/", nil)()
			req.Body, req.ContentLength = io.NopCloser(iotest.HalfReader(strings.NewReader("twelve bytes"))), 12
			return req
		},
		"body of a large size": newRequest(http.MethodPost, "http://h/", strings.NewReader(strings.Repeat("0123456789", 2000))),
		"User-Agent of spaces": newRequest(http.MethodGet, "http://h/", nil, "User-Agent", " \t "),
	} {
		t.Run(name, func(t *testing.T) {
			got, want, gotErr, wantErr := writeBoth(t, mk)
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("wrote %q (%v)\nreq.Write %q (%v)", got, gotErr, want, wantErr)
			}
		})
	}
}

// A CONNECT request without a path names its host as its request-URI, as req.Write writes
// it, not "/".
func TestWriteConnectAsNetHTTP(t *testing.T) {
	for name, u := range map[string]*url.URL{
		"host":   {Scheme: "http", Host: "h:1"},
		"opaque": {Scheme: "http", Host: "h:1", Opaque: "other:2"},
	} {
		req := &http.Request{Method: http.MethodConnect, URL: u, Header: http.Header{}}
		var g, w bytes.Buffer
		bw := bufio.NewWriter(&g)
		if writable(req) {
			var keys []string
			if err := writeRequest(bw, req, &keys); err != nil {
				t.Fatal(err)
			}
		} else if err := req.Write(bw); err != nil {
			t.Fatal(err)
		}
		bw.Flush()
		req.Write(&w)
		if g.String() != w.String() {
			t.Errorf("%s: wrote %q\nreq.Write %q", name, g.String(), w.String())
		}
	}
}

// A body whose length is not the one declared is an error, as req.Write's.
func TestWriteRequestBodyLength(t *testing.T) {
	for name, body := range map[string]string{"short": "abc", "long": "abcdefg"} {
		mk := func() *http.Request {
			req := newRequest(http.MethodPost, "http://h/", strings.NewReader(body))()
			req.ContentLength = 5
			return req
		}
		_, _, gotErr, wantErr := writeBoth(t, mk)
		if gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error() {
			t.Errorf("%s body: %v, want %v", name, gotErr, wantErr)
		}
	}
}

// What net/http's Transport refuses to send (a control character in a field's value, a name
// or method that is not a token) is refused with its error, before a connection is opened:
// req.Write alone would turn CR and LF into spaces and send the rest.
func TestRefusesWhatNetHTTPRefuses(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	tr := newTransport(t, s)
	for name, edit := range map[string]func(*http.Request){
		"CRLF in a value": func(r *http.Request) { r.Header.Set("X-A", "a\r\nX-Injected: 1") },
		"LF in a value":   func(r *http.Request) { r.Header.Set("X-A", "a\nb") },
		"NUL in a value":  func(r *http.Request) { r.Header.Set("X-A", "a\x00") },
		"CR in the UA":    func(r *http.Request) { r.Header.Set("User-Agent", "a\rb") },
		"space in a name": func(r *http.Request) { r.Header["X A"] = []string{"1"} },
		"bad method":      func(r *http.Request) { r.Method = "GE T" },
		"CR in a trailer": func(r *http.Request) { r.Trailer = http.Header{"X-T": {"a\r"}} },
	} {
		mk := func() *http.Request {
			req := newRequest(http.MethodPost, s.URL, strings.NewReader("x"))()
			edit(req)
			return req
		}
		_, err := tr.RoundTrip(mk())
		_, want := http.DefaultTransport.RoundTrip(mk())
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: %v, want net/http's %v", name, err, want)
		}
	}
	if n := s.opened.Load(); n != 0 {
		t.Fatalf("%d connections opened for requests that are refused", n)
	}
}

// A request it does not write itself (a body of unknown length) goes by req.Write and is
// answered as well.
func TestUnknownLengthByReqWrite(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, strings.Join(r.TransferEncoding, ",")+" "+string(b))
	})
	tr := newTransport(t, s)
	req, _ := http.NewRequest(http.MethodPost, s.URL, io.NopCloser(strings.NewReader("abc")))
	if writable(req) {
		t.Fatal("a body of unknown length is writable")
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != "chunked abc" {
		t.Fatalf("%q, %v", b, err)
	}
}

// FuzzWriteRequest writes the same request with writeRequest and with req.Write, where
// net/http's Transport would send it and writeRequest takes it: the bytes must be the same.
func FuzzWriteRequest(f *testing.F) {
	f.Add("POST", "/mcp", "", "Content-Type", " application/json\t", "Host", "x", `{"a":1}`)
	f.Add("", "/a b", "q=%zz", "user-agent", "", "X-A", "", "")
	f.Add("GET", "/", "", "User-Agent", " ", "X-A", "1", "")
	f.Add("CONNECT", "", "", "X-A", "1", "X-B", "2", "")
	f.Fuzz(func(t *testing.T, method, path, query, k1, v1, k2, v2, body string) {
		mk := func() *http.Request {
			req := &http.Request{Method: method, Header: http.Header{k1: {v1}, k2: {v2, v1}},
				URL: &url.URL{Scheme: "http", Host: "127.0.0.1:8080", Path: path, RawQuery: query}}
			if body != "" {
				req.Body, req.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
			}
			return req
		}
		if checkRequest(mk()) != nil || !writable(mk()) {
			return
		}
		got, want, gotErr, wantErr := writeBoth(t, mk)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("wrote %q (%v)\nreq.Write %q (%v)", got, gotErr, want, wantErr)
		}
	})
}
