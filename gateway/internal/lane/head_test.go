package lane

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// goSDKHead is what the go-sdk's streamable HTTP client sends for a tools/call.
const goSDKHead = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:43123\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: 97\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: ABCDEFGHIJKLMNOPQRSTUVWXYZ234567\r\nAccept-Encoding: gzip\r\n\r\n"

// undiciHead is what the TypeScript SDK (1.32.2) on Node 20's fetch sent for a tools/call,
// captured off the wire.
const undiciHead = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:35561\r\nconnection: keep-alive\r\nmcp-session-id: ABCDEFGHIJKLMNOPQRSTUVWXYZ234567\r\nmcp-protocol-version: 2025-06-18\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\naccept-language: *\r\nsec-fetch-mode: cors\r\nuser-agent: node\r\naccept-encoding: gzip, deflate\r\ncontent-length: 97\r\n\r\n"

// post is a head with the request line "POST target HTTP/1.1" and the given field lines.
func post(target string, fields ...string) string {
	return "POST " + target + " HTTP/1.1\r\n" + strings.Join(fields, "\r\n") + "\r\n\r\n"
}

// minimal is a head with the fields the lane requires and the given others after them.
func minimal(fields ...string) string {
	return post("/mcp", append([]string{"Host: a", "Content-Length: 0"}, fields...)...)
}

// manyFields is a head with n fields in all (Host and Content-Length included).
func manyFields(n int) string {
	var f []string
	for i := range n - 2 {
		f = append(f, fmt.Sprintf("X-F%d: v", i))
	}
	return minimal(f...)
}

// ofLength is a head exactly n bytes long, padded in one field's value.
func ofLength(n int) string {
	short := minimal("X-Pad: ")
	return minimal("X-Pad: " + strings.Repeat("p", n-len(short)))
}

var headCases = []struct {
	name string
	in   string
	err  error // nil: taken
}{
	{"go-sdk tools/call", goSDKHead, nil},
	{"Node fetch tools/call", undiciHead, nil},
	{"Node fetch initialize", "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:35561\r\nconnection: keep-alive\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\naccept-language: *\r\nsec-fetch-mode: cors\r\nuser-agent: node\r\naccept-encoding: gzip, deflate\r\ncontent-length: 148\r\n\r\n", nil},
	{"minimal", minimal(), nil},
	{"OWS around values, HTAB inside", post("/mcp", "Host:\t a \t", "Content-Length:  7\t", "X-V: \ta\tb  c \t"), nil},
	{"empty value", minimal("X-Empty:", "X-Blank: \t "), nil},
	{"Accept twice, in order", minimal("Accept: text/event-stream", "accept: application/json"), nil},
	{"Content-Length with leading zeros", post("/mcp", "Host: a", "Content-Length: 0097"), nil},
	{"Content-Length of 10 digits", post("/mcp", "Host: a", "Content-Length: 9999999999"), nil},
	{"Connection: Keep-Alive", minimal("Connection: Keep-Alive"), nil},
	{"Pragma: no-cache gets Cache-Control", minimal("Pragma: no-cache"), nil},
	{"Pragma: no-cache with Cache-Control", minimal("Pragma: no-cache", "Cache-Control: max-age=0"), nil},
	{"IPv6 Host", post("/mcp", "Host: [::1]:8080", "Content-Length: 0"), nil},
	{"odd but token names", minimal("x-custom-THING: 1", "A!#$%&'*+.^_`|~-9: 2", "x-a-name-longer-than-thirty-two-bytes: 3"), nil},
	{"target bytes", post("/a-b_c.d~e/f..g/.../", "Host: a", "Content-Length: 0"), nil},
	{"root target", post("/", "Host: a", "Content-Length: 0"), nil},
	{"empty segments", post("//mcp//", "Host: a", "Content-Length: 0"), nil},
	{"MaxFields fields", manyFields(MaxFields), nil},
	{"MaxHead bytes", ofLength(MaxHead), nil},

	{"GET", "GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n", errMethod},
	{"lower-case post", "post /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", errMethod},
	{"POSTX", "POSTX /mcp HTTP/1.1\r\n", errMethod},
	{"two spaces after method", "POST  /mcp HTTP/1.1\r\n", errTarget},
	{"HTTP/1.0", "POST /mcp HTTP/1.0\r\nHost: a\r\nContent-Length: 0\r\n\r\n", errVersion},
	{"HTTP/2.0", "POST /mcp HTTP/2.0\r\n", errVersion},
	{"lower-case version", "POST /mcp http/1.1\r\n", errVersion},
	{"space after version", "POST /mcp HTTP/1.1 \r\n", errVersion},
	{"request line ends in bare LF", "POST /mcp HTTP/1.1\nHost: a\nContent-Length: 0\n\n", errVersion},
	{"absolute-form target", post("http://a/mcp", "Host: a", "Content-Length: 0"), errTarget},
	{"asterisk target", post("*", "Host: a", "Content-Length: 0"), errTarget},
	{"relative target", post("mcp", "Host: a", "Content-Length: 0"), errTarget},
	{"%2e%2e", post("/%2e%2e/mcp", "Host: a", "Content-Length: 0"), errTarget},
	{"query", post("/mcp?x=1", "Host: a", "Content-Length: 0"), errTarget},
	{"fragment", post("/mcp#x", "Host: a", "Content-Length: 0"), errTarget},
	{".. segment", post("/a/../mcp", "Host: a", "Content-Length: 0"), errTarget},
	{"trailing .. segment", post("/a/..", "Host: a", "Content-Length: 0"), errTarget},
	{"backslash", post("/a\\mcp", "Host: a", "Content-Length: 0"), errTarget},
	{"empty target", "POST  HTTP/1.1\r\n", errTarget},

	{"bare LF after a field", "POST /mcp HTTP/1.1\r\nHost: a\nContent-Length: 0\r\n\r\n", errValue},
	{"bare LF ends the head", "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\n", errName},
	{"bare CR in a value", minimal("X-A: a\rb"), errBareCR},
	{"bare CR ends the head", "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\rx", errBareCR},
	{"obs-fold", minimal("X-A: a", " b"), errFold},
	{"obs-fold with HTAB", minimal("X-A: a", "\tb"), errFold},
	{"TE with obs-fold", minimal("Transfer-Encoding:", " chunked"), errFraming},
	{"first field folded", post("/mcp", " Host: a", "Content-Length: 0"), errFold},
	{"NUL in a value", minimal("X-A: a\x00b"), errValue},
	{"DEL in a value", minimal("X-A: a\x7fb"), errValue},
	{"CTL in a value", minimal("X-A: a\x01b"), errValue},
	{"UTF-8 in a value", minimal("X-A: caf\xc3\xa9"), errValue},
	{"NUL in a name", minimal("X-\x00A: a"), errName},
	{"space before colon", post("/mcp", "Host : a", "Content-Length: 0"), errName},
	{"HTAB before colon", minimal("X-A\t: a"), errName},
	{"no colon", minimal("X-A a"), errName},
	{"empty name", minimal(": a"), errEmptyName},
	{"non-token name", minimal("X(A): a"), errName},
	{"UTF-8 name", minimal("X-\xc3\xa9: a"), errName},

	{"no Host", post("/mcp", "Content-Length: 0"), errHost},
	{"Host twice", post("/mcp", "Host: a", "Host: a", "Content-Length: 0"), errHost},
	{"Host twice, cases differ", post("/mcp", "Host: a", "host: b", "Content-Length: 0"), errHost},
	{"empty Host", post("/mcp", "Host: ", "Content-Length: 0"), errHost},
	{"Host with a path", post("/mcp", "Host: a/b", "Content-Length: 0"), errHost},
	{"Host with userinfo", post("/mcp", "Host: u@a", "Content-Length: 0"), errHost},
	{"Host with an underscore", post("/mcp", "Host: a_b", "Content-Length: 0"), errHost},
	{"Host with a space", post("/mcp", "Host: a b", "Content-Length: 0"), errHost},

	{"no Content-Length", post("/mcp", "Host: a"), errLength},
	{"Content-Length twice", minimal("Content-Length: 0"), errLength},
	{"Content-Length twice, cases differ", post("/mcp", "Host: a", "Content-Length: 4", "content-length: 4"), errLength},
	{"Content-Length: 4, 4", post("/mcp", "Host: a", "Content-Length: 4, 4"), errLength},
	{"Content-Length: +4", post("/mcp", "Host: a", "Content-Length: +4"), errLength},
	{"Content-Length: -1", post("/mcp", "Host: a", "Content-Length: -1"), errLength},
	{"Content-Length: 4 4", post("/mcp", "Host: a", "Content-Length: 4 4"), errLength},
	{"Content-Length: 0x10", post("/mcp", "Host: a", "Content-Length: 0x10"), errLength},
	{"Content-Length of 11 digits", post("/mcp", "Host: a", "Content-Length: 10000000000"), errLength},
	{"empty Content-Length", post("/mcp", "Host: a", "Content-Length:"), errLength},
	{"CL and TE", minimal("Transfer-Encoding: chunked"), errFraming},
	{"TE alone", post("/mcp", "Host: a", "transfer-encoding: chunked"), errFraming},
	{"TE: trailers", minimal("TE: trailers"), errFraming},
	{"Te: trailers", minimal("Te: trailers"), errFraming},
	{"Expect", minimal("Expect: 100-continue"), errFraming},
	{"Upgrade", minimal("Upgrade: websocket"), errFraming},
	{"Trailer", minimal("Trailer: X-A"), errFraming},
	{"Connection: close", minimal("Connection: close"), errConn},
	{"Connection: keep-alive, Upgrade", minimal("Connection: keep-alive, Upgrade"), errConn},
	{"Connection twice", minimal("Connection: keep-alive", "Connection: keep-alive"), errRepeat},
	{"Accept-Encoding twice", minimal("Accept-Encoding: gzip", "Accept-Encoding: br"), errRepeat},
	{"Content-Type twice, cases differ", minimal("Content-Type: a/b", "content-type: a/b"), errRepeat},
	{"MaxFields+1 fields", manyFields(MaxFields + 1), errFields},
	{"MaxHead+1 bytes", ofLength(MaxHead + 1), errTooLong},
	{"MaxHead bytes, no end", ofLength(MaxHead + 2)[:MaxHead], errTooLong},
}

func TestParseHead(t *testing.T) {
	for _, c := range headCases {
		t.Run(c.name, func(t *testing.T) {
			var h Head
			n, err := ParseHead([]byte(c.in), &h)
			if err != c.err {
				t.Fatalf("ParseHead: %v, want %v", err, c.err)
			}
			if err != nil {
				if !errors.Is(err, ErrNotLane) || n != 0 {
					t.Errorf("ParseHead: %d, %v; want 0 and an error wrapping ErrNotLane", n, err)
				}
				return
			}
			if n != len(c.in) {
				t.Errorf("n = %d, want %d", n, len(c.in))
			}
			if d := readRequestDiff([]byte(c.in), n, &h); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestParseHeadPrefixes checks that every proper prefix of a head the lane takes is
// ErrIncomplete, never ErrNotLane: the lane reads on rather than hand a head back early.
func TestParseHeadPrefixes(t *testing.T) {
	for _, c := range headCases {
		if c.err != nil {
			continue
		}
		for k := range len(c.in) {
			var h Head
			if _, err := ParseHead([]byte(c.in[:k]), &h); err != ErrIncomplete {
				t.Fatalf("%s: ParseHead of the first %d bytes: %v, want ErrIncomplete", c.name, k, err)
			}
		}
	}
}

// TestServerAgrees sends each head the lane takes, with its body, to a net/http server and
// checks that the handler sees what ParseHead took: the server checks more than ReadRequest.
func TestServerAgrees(t *testing.T) {
	type seen struct {
		method, uri, host string
		header            http.Header
		length            int64
		body              []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- seen{r.Method, r.RequestURI, r.Host, r.Header.Clone(), r.ContentLength, body}
	}))
	defer srv.Close()
	for _, c := range headCases {
		var h Head
		if _, err := ParseHead([]byte(c.in), &h); err != nil || h.ContentLength > 1<<10 {
			continue // not taken, or a body too long to send
		}
		body := bytes.Repeat([]byte("b"), int(h.ContentLength))
		resp, msg := exchange(t, srv.Listener.Addr().String(), append([]byte(c.in), body...))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: the server answered %s: %s", c.name, resp.Status, msg)
			continue
		}
		want := seen{h.Method, h.Target, h.Host, h.Header, h.ContentLength, body}
		if s := <-got; !reflect.DeepEqual(s, want) {
			t.Errorf("%s: the handler saw %+v, ParseHead %+v", c.name, s, want)
		}
	}
}

// exchange sends req to addr on a connection of its own and returns the response and its body.
func exchange(t *testing.T, addr string, req []byte) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A head net/http frames otherwise (a chunked body, say) would leave both ends waiting.
	conn.SetDeadline(time.Now().Add(testwait.Timeout))
	if _, err := conn.Write(req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	msg, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	return resp, msg
}

func TestParseHeadFields(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	var h Head
	n, err := ParseHead([]byte(goSDKHead+body+"POST /next"), &h)
	if err != nil || n != len(goSDKHead) {
		t.Fatalf("ParseHead: %d, %v; want %d, nil", n, err, len(goSDKHead))
	}
	want := Head{Method: "POST", Target: "/mcp", Host: "127.0.0.1:43123", ContentLength: 97, Header: http.Header{
		"User-Agent":           {"Go-http-client/1.1"},
		"Content-Length":       {"97"},
		"Accept":               {"application/json, text/event-stream"},
		"Content-Type":         {"application/json"},
		"Mcp-Protocol-Version": {"2025-06-18"},
		"Mcp-Session-Id":       {"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"},
		"Accept-Encoding":      {"gzip"},
	}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("ParseHead:\n got %+v\nwant %+v", h, want)
	}
}

// TestParseHeadReusesHeader checks that a second parse clears the first's fields from the same
// map.
func TestParseHeadReusesHeader(t *testing.T) {
	var h Head
	if _, err := ParseHead([]byte(undiciHead), &h); err != nil {
		t.Fatal(err)
	}
	m := reflect.ValueOf(h.Header).Pointer()
	if _, err := ParseHead([]byte(minimal("Accept: a", "Accept: b")), &h); err != nil {
		t.Fatal(err)
	}
	want := http.Header{"Content-Length": {"0"}, "Accept": {"a", "b"}}
	if !reflect.DeepEqual(h.Header, want) {
		t.Errorf("Header %v, want %v", h.Header, want)
	}
	if reflect.ValueOf(h.Header).Pointer() != m {
		t.Error("Header is a new map, want the first parse's")
	}
}

func TestParseHeadAllocs(t *testing.T) {
	for _, c := range []struct {
		name, head string
		max        float64
	}{
		// One string for the head (target, Host and values are its substrings), one []string
		// under the values; names are canonical as sent or common, so none is allocated.
		{"go-sdk", goSDKHead, 2},
		{"Node fetch", undiciHead, 2},
	} {
		b := []byte(c.head)
		var h Head
		if _, err := ParseHead(b, &h); err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(100, func() {
			if _, err := ParseHead(b, &h); err != nil {
				t.Fatal(err)
			}
		})
		if n > c.max {
			t.Errorf("%s: %v allocations per ParseHead, want at most %v", c.name, n, c.max)
		}
	}
}

// BenchmarkParseHead parses the go-sdk's tools/call head, with http.ReadRequest on the same
// bytes as the baseline.
func BenchmarkParseHead(b *testing.B) {
	head := []byte(goSDKHead)
	b.Run("lane", func(b *testing.B) {
		var h Head
		b.ReportAllocs()
		b.SetBytes(int64(len(head)))
		for b.Loop() {
			if _, err := ParseHead(head, &h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("net-http", func(b *testing.B) {
		r := bytes.NewReader(head)
		br := bufio.NewReader(r)
		b.ReportAllocs()
		b.SetBytes(int64(len(head)))
		for b.Loop() {
			r.Reset(head)
			br.Reset(r)
			if _, err := http.ReadRequest(br); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// readRequestDiff says how what ParseHead took from b (n bytes, into h) differs from what
// http.ReadRequest reads from the same bytes: "" when they agree on the method, target, Host,
// every field (net/http's server removes Host from the fields a handler sees, so Head has none),
// Content-Length, and where the body starts.
func readRequestDiff(b []byte, n int, h *Head) string {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b)))
	if err != nil {
		return fmt.Sprintf("ParseHead took %q, http.ReadRequest: %v", b, err)
	}
	var d []string
	if req.Method != h.Method {
		d = append(d, fmt.Sprintf("Method %q, net/http %q", h.Method, req.Method))
	}
	if req.RequestURI != h.Target || req.URL.Path != h.Target {
		d = append(d, fmt.Sprintf("Target %q, net/http RequestURI %q, URL.Path %q", h.Target, req.RequestURI, req.URL.Path))
	}
	if req.Host != h.Host {
		d = append(d, fmt.Sprintf("Host %q, net/http %q", h.Host, req.Host))
	}
	if req.ContentLength != h.ContentLength {
		d = append(d, fmt.Sprintf("ContentLength %d, net/http %d", h.ContentLength, req.ContentLength))
	}
	delete(req.Header, "Host")
	if !reflect.DeepEqual(req.Header, h.Header) {
		d = append(d, fmt.Sprintf("Header %q, net/http %q", h.Header, req.Header))
	}
	body, _ := io.ReadAll(req.Body) // short when b ends before ContentLength bytes of body
	if want := b[n:min(int64(len(b)), int64(n)+h.ContentLength)]; !bytes.Equal(body, want) {
		d = append(d, fmt.Sprintf("body after %d bytes %q, net/http's body %q", n, want, body))
	}
	if d == nil {
		return ""
	}
	return fmt.Sprintf("on %q:\n%s", b, strings.Join(d, "\n"))
}
