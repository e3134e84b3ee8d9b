package httpcall

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
)

// sseAnswer is a tools/call answered on an event stream, as the go-sdk's server answers it.
var sseAnswer = func() []byte {
	event := "event: message\nid: 1_0\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"agentpool-raw-1\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}\n\n"
	return fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nCache-Control: no-cache, no-transform\r\n"+
		"Content-Type: text/event-stream\r\nDate: Mon, 07 Dec 2026 07:40:00 GMT\r\n"+
		"Mcp-Session-Id: 6MHFU2ZQXVBBW3ENVSTCXJCNKC\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"%x\r\n%s\r\n0\r\n\r\n", len(event), event)
}()

// serveFixed answers every request on ln's connections with answer. It reads a request's
// head and its Content-Length body without allocating, so that the benchmark's allocations
// are the client's.
func serveFixed(ln net.Listener, answer []byte) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			br := bufio.NewReader(c)
			for {
				n := 0
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						return
					}
					if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
						n = 0
						for _, d := range bytes.TrimSpace(v) {
							n = n*10 + int(d-'0')
						}
					}
					if len(line) == 2 {
						break
					}
				}
				if _, err := br.Discard(n); err != nil {
					return
				}
				if _, err := c.Write(answer); err != nil {
					return
				}
			}
		}()
	}
}

// BenchmarkRoundTrip is a passed-through call: a JSON-RPC POST answered on an event stream,
// over one kept connection, with this package's writer and parser and with net/http's
// (req.Write and http.ReadResponse).
func BenchmarkRoundTrip(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go serveFixed(ln, sseAnswer)
	call := []byte(`{"jsonrpc":"2.0","id":"agentpool-raw-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	u := "http://" + ln.Addr().String() + "/mcp"
	for _, bc := range []struct {
		name    string
		netHTTP bool
	}{{"httpcall", false}, {"net-http", true}} {
		b.Run(bc.name, func(b *testing.B) {
			tr := &Transport{Scheme: "http", Host: ln.Addr().String(), Fallback: http.DefaultTransport, netHTTP: bc.netHTTP}
			defer tr.CloseIdleConnections()
			buf := make([]byte, 4<<10)
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, u, bytes.NewReader(call))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", "6MHFU2ZQXVBBW3ENVSTCXJCNKC")
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				resp, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := resp.Body.Read(buf); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkReadResponse reads the event-stream answer of a call from memory, head and body,
// with this package's parser and with http.ReadResponse: the parsing alone, without I/O.
func BenchmarkReadResponse(b *testing.B) {
	req := &http.Request{Method: http.MethodPost}
	buf := make([]byte, 4<<10)
	drain := func(body io.Reader) {
		for {
			if _, err := body.Read(buf); err == io.EOF {
				return
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("httpcall", func(b *testing.B) {
		r, br, h := bytes.NewReader(sseAnswer), bufio.NewReaderSize(nil, 4<<10), &head{}
		b.ReportAllocs()
		for b.Loop() {
			r.Reset(sseAnswer)
			br.Reset(r)
			x := &exchange{}
			if err := readResponse(br, req.Method, h, &x.resp, &x.body.f); err != nil {
				b.Fatal(err)
			}
			drain(&x.body.f)
		}
	})
	b.Run("net-http", func(b *testing.B) {
		r, br := bytes.NewReader(sseAnswer), bufio.NewReaderSize(nil, 4<<10)
		b.ReportAllocs()
		for b.Loop() {
			r.Reset(sseAnswer)
			br.Reset(r)
			resp, err := http.ReadResponse(br, req)
			if err != nil {
				b.Fatal(err)
			}
			drain(resp.Body)
		}
	})
}

// BenchmarkWriteRequest writes a call's POST to memory with this package's writer and with
// req.Write: the formatting alone, without I/O.
func BenchmarkWriteRequest(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":"agentpool-raw-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "6MHFU2ZQXVBBW3ENVSTCXJCNKC")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	body := bytes.NewReader(call)
	req.Body, req.ContentLength = io.NopCloser(body), int64(len(call))
	bw := bufio.NewWriterSize(io.Discard, 4<<10)
	var keys []string
	for _, bc := range []struct {
		name  string
		write func() error
	}{
		{"httpcall", func() error { return writeRequest(bw, req, &keys) }},
		{"net-http", func() error { return req.Write(bw) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(call)
				if err := bc.write(); err != nil {
					b.Fatal(err)
				}
				bw.Flush()
			}
		})
	}
}
