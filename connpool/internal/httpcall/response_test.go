package httpcall

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outcome is what a reader of a response makes of its bytes.
type outcome struct {
	Err         bool
	Status      string
	StatusCode  int
	Proto       string
	Major       int
	Minor       int
	Header      http.Header
	ContentLen  int64
	Close       bool
	TE          []string
	Body        string
	BodyErr     bool
	Trailer     http.Header
	Rest        string // what is left on the connection after a body read to its end
	RestVisible bool   // Rest was read: the body ended where its framing said
}

// readBoth reads in as one response to a request of method, with this package's parser and
// with http.ReadResponse.
func readBoth(in []byte, method string) (got, want outcome) {
	return readBothInto(&head{}, in, method)
}

// readBothInto is readBoth with h the head that a connection reads its responses into.
func readBothInto(h *head, in []byte, method string) (got, want outcome) {
	br := bufio.NewReaderSize(bytes.NewReader(in), 4<<10)
	var resp http.Response
	var f frame
	if err := readResponse(br, method, h, &resp, &f); err != nil {
		got.Err = true
	} else {
		resp.Body = io.NopCloser(&f)
		got = observe(&resp, br, method)
	}
	br = bufio.NewReaderSize(bytes.NewReader(in), 4<<10)
	if nresp, err := http.ReadResponse(br, &http.Request{Method: method}); err != nil {
		want.Err = true
	} else {
		want = observe(nresp, br, method)
	}
	return got, want
}

func observe(resp *http.Response, br *bufio.Reader, method string) outcome {
	// A body that ends with the connection leaves nothing to compare after it.
	framed := method == http.MethodHead || !bodyAllowed(resp.StatusCode) ||
		resp.ContentLength != -1 || resp.TransferEncoding != nil
	o := outcome{Status: resp.Status, StatusCode: resp.StatusCode, Proto: resp.Proto,
		Major: resp.ProtoMajor, Minor: resp.ProtoMinor, Header: resp.Header,
		ContentLen: resp.ContentLength, Close: resp.Close, TE: resp.TransferEncoding}
	b, err := io.ReadAll(resp.Body)
	o.Body, o.BodyErr, o.Trailer = string(b), err != nil, resp.Trailer
	if err == nil && framed {
		rest, _ := io.ReadAll(br)
		o.Rest, o.RestVisible = string(rest), true
	}
	return o
}

var responseCases = []struct {
	name   string
	in     string
	method string
	refuse bool   // refused by both
	body   string // else the body both read
}{
	{name: "length", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokNEXT", body: "ok"},
	{name: "chunked event stream", in: "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\ndata:\r\n3\r\n x\n\r\n0\r\n\r\nNEXT", body: "data: x\n"},
	{name: "until EOF", in: "HTTP/1.1 200 OK\r\n\r\nall of it", body: "all of it"},
	{name: "HTTP/1.0 until EOF", in: "HTTP/1.0 200 OK\r\n\r\nall", body: "all"},
	{name: "HTTP/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nxNEXT", body: "x"},
	{name: "Connection close", in: "HTTP/1.1 200 OK\r\nConnection: Keep-Alive, close\r\nContent-Length: 1\r\n\r\nx", body: "x"},
	{name: "no body for HEAD", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nNEXT", method: http.MethodHead},
	{name: "chunked HEAD", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\nNEXT", method: http.MethodHead},
	{name: "no body for 204", in: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nNEXT"},
	{name: "no body for 304", in: "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\nNEXT"},
	{name: "no body for 1xx", in: "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n"},
	{name: "CL and TE: chunked wins", in: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\nNEXT", body: "x"},
	{name: "TE in another case", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n"},
	{name: "TE ignored on HTTP/1.0", in: "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\nNEXT", body: "0\r\n"},
	{name: "TE twice", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", refuse: true},
	{name: "TE gzip, chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", refuse: true},
	{name: "TE with a Kelvin sign", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chun\u212aed\r\n\r\n0\r\n\r\n", refuse: true},
	{name: "same CL twice", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length:  2\r\n\r\nokNEXT", body: "ok"},
	{name: "conflicting CL", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nokNEXT", refuse: true},
	{name: "CL list", in: "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", refuse: true},
	{name: "CL signed", in: "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok", refuse: true},
	{name: "CL empty", in: "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\nok", refuse: true},
	{name: "CL past int64", in: "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\nok", refuse: true},
	{name: "CL bad on 204", in: "HTTP/1.1 204 No Content\r\nContent-Length: x\r\n\r\n", refuse: true},
	{name: "CL short", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok", body: "ok"},
	{name: "obs-fold", in: "HTTP/1.1 200 OK\r\nX-A: one\r\n  two \r\n\tthree\r\nContent-Length: 0\r\n\r\n"},
	{name: "obs-fold of white space only", in: "HTTP/1.1 200 OK\r\nX-A: one\r\n   \r\nContent-Length: 0\r\n\r\n"},
	{name: "obs-fold first", in: "HTTP/1.1 200 OK\r\n X-A: one\r\n\r\n", refuse: true},
	{name: "obs-fold of a CL", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 2\r\n\r\nx", refuse: true},
	{name: "bare LF", in: "HTTP/1.1 200 OK\nContent-Length: 2\n\nokNEXT", body: "ok"},
	{name: "bare CR in a value", in: "HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n", refuse: true},
	{name: "space before colon", in: "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nokNEXT", body: "okNEXT"},
	{name: "tab before colon", in: "HTTP/1.1 200 OK\r\nContent-Length\t: 2\r\n\r\nok", refuse: true},
	{name: "no colon", in: "HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\nok", refuse: true},
	{name: "empty key", in: "HTTP/1.1 200 OK\r\n: 2\r\n\r\nok", refuse: true},
	{name: "NUL in a value", in: "HTTP/1.1 200 OK\r\nX-A: a\x00\r\n\r\n", refuse: true},
	{name: "obs-text in a value", in: "HTTP/1.1 200 OK\r\nX-A: caf\xe9\r\nContent-Length: 0\r\n\r\n"},
	{name: "keys canonical", in: "HTTP/1.1 200 OK\r\ncontent-TYPE: a\r\nmcp-session-id: b\r\nx-a: 1\r\nX-A: 2\r\ncontent-length: 0\r\n\r\n"},
	{name: "Pragma no-cache", in: "HTTP/1.1 200 OK\r\nPragma: no-cache\r\nContent-Length: 0\r\n\r\n"},
	{name: "huge chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nx", refuse: false, body: ""},
	{name: "chunk extension", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;name=\"v\"\r\nok\r\n0;x\r\n\r\nNEXT", body: "ok"},
	{name: "chunk without CRLF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX0\r\n\r\n", body: "ok"},
	{name: "trailer", in: "HTTP/1.1 200 OK\r\nTrailer: X-Sum\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 1\r\n\r\nNEXT", body: "ok"},
	{name: "forbidden trailer key", in: "HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", refuse: true},
	{name: "status with sign", in: "HTTP/1.1 +99 Odd\r\nContent-Length: 0\r\n\r\n"},
	{name: "status negative", in: "HTTP/1.1 -99 Odd\r\n\r\n", refuse: true},
	{name: "status of two digits", in: "HTTP/1.1 99 Odd\r\n\r\n", refuse: true},
	{name: "status spaces", in: "HTTP/1.1    200    OK\r\nContent-Length: 0\r\n\r\n"},
	{name: "HTTP/0.9", in: "HTTP/0.9 200 OK\r\nContent-Length: 1\r\n\r\nx", body: "x"},
	{name: "HTTP/0.0 chunked", in: "HTTP/0.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
	{name: "version bad", in: "HTTP/1.10 200 OK\r\n\r\n", refuse: true},
	{name: "not HTTP", in: "SMTP ready\r\n\r\n", refuse: true},
	{name: "cut in the head", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", refuse: true},
	{name: "cut in the status line", in: "HTTP/1.1 200 OK", refuse: true},
	{name: "empty", in: "", refuse: true},
}

// The parser reads every classic form as http.ReadResponse does: the same refusals, and
// otherwise the same status, header, framing, body and bytes left for the next response.
func TestReadResponseAgreesWithNetHTTP(t *testing.T) {
	for _, c := range responseCases {
		t.Run(c.name, func(t *testing.T) {
			method := c.method
			if method == "" {
				method = http.MethodPost
			}
			got, want := readBoth([]byte(c.in), method)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("ours differs from net/http (-net/http +ours):\n%s", d)
			}
			if got.Err != c.refuse {
				t.Fatalf("refused: %v, want %v", got.Err, c.refuse)
			}
			if !got.Err && got.Body != c.body {
				t.Fatalf("body %q, want %q", got.Body, c.body)
			}
		})
	}
}

// Lines longer than the reader's buffer, with their CR at or about its end, are read as
// net/http reads them.
func TestReadResponseLongLines(t *testing.T) {
	for n := 4<<10 - 40; n < 4<<10+8; n++ {
		for _, in := range []string{
			"HTTP/1.1 200 OK\r\nX-A: " + strings.Repeat("a", n) + "\r\nContent-Length: 1\r\n\r\nxNEXT",
			"HTTP/1.1 200 " + strings.Repeat("b", n) + "\r\nX-A: 1\r\n " + strings.Repeat("c", n) + "\r\n\r\nall",
			"HTTP/1.1 200 OK\r\nX-A: " + strings.Repeat("a", n) + "\r\r\n\r\n",
		} {
			got, want := readBoth([]byte(in), http.MethodPost)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("line of %d bytes: ours differs from net/http (-net/http +ours):\n%s", n, d)
			}
		}
	}
}

// A head of many fields, some repeated (Content-Length too), is read as net/http reads it.
func TestReadResponseManyFields(t *testing.T) {
	for _, n := range []int{31, 32, 33, 100} {
		var b strings.Builder
		b.WriteString("HTTP/1.1 200 OK\r\n")
		for i := range n {
			fmt.Fprintf(&b, "x-%d: %d\r\nX-Same: %d\r\n", i%7, i, i)
		}
		b.WriteString("Content-Length: 2\r\ncontent-length: 2\r\n\r\nokNEXT")
		got, want := readBoth([]byte(b.String()), http.MethodPost)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%d fields: ours differs from net/http (-net/http +ours):\n%s", 2*n+2, d)
		}
		if got.Body != "ok" || len(got.Header["X-Same"]) != n {
			t.Fatalf("%d fields: body %q, %d values of X-Same", 2*n+2, got.Body, len(got.Header["X-Same"]))
		}
	}
}

// FuzzReadResponse feeds the same bytes to the parser and to http.ReadResponse: both refuse
// them, or both read the same response and leave the same bytes for the next. The parser
// reads them into a head that read another response before, as a kept connection's does.
func FuzzReadResponse(f *testing.F) {
	var before strings.Builder
	before.WriteString("HTTP/1.1 200 OK\r\n")
	for i := range 40 {
		fmt.Fprintf(&before, "X-%d: %s\r\n", i%5, strings.Repeat("v", i))
	}
	before.WriteString("Content-Length: 0\r\n\r\n")
	for _, c := range responseCases {
		f.Add([]byte(c.in), c.method == http.MethodHead)
	}
	f.Fuzz(func(t *testing.T, in []byte, toHead bool) {
		method := http.MethodPost
		if toHead {
			method = http.MethodHead
		}
		var h head
		if got, _ := readBothInto(&h, []byte(before.String()), http.MethodPost); got.Err {
			t.Fatal("the response before is refused")
		}
		got, want := readBothInto(&h, in, method)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%q: ours differs from net/http (-net/http +ours):\n%s", in, d)
		}
	})
}
