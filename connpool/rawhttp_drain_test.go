package connpool

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The rest of an event stream read after its answer is read for a while, not for as long
// as the server keeps the stream open: a server that never ends it would otherwise hold a
// goroutine and a connection per call until the client ends.
func TestRawHTTPDrainEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &rawHTTP{life: context.Background()}
		rctx, rcancel := context.WithCancel(context.Background())
		// A stream the server keeps open: a read returns only when the request ends.
		pr, pw := io.Pipe()
		context.AfterFunc(rctx, func() { pw.CloseWithError(rctx.Err()) })
		done := make(chan struct{})
		go func() {
			h.drain(pr, rcancel)
			close(done)
		}()
		<-done
		if rctx.Err() == nil {
			t.Fatal("the drained request did not end")
		}
	})
}

// Drains running at once are bounded: against a server that keeps every stream open, calls
// past the bound close their connection at once rather than hold one more for drainWait, and
// a drain ending makes room again.
func TestRawHTTPDrainsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &rawHTTP{life: context.Background()}
		open := func() (io.ReadCloser, context.CancelFunc) {
			rctx, rcancel := context.WithCancel(context.Background())
			pr, pw := io.Pipe()
			context.AfterFunc(rctx, func() { pw.CloseWithError(rctx.Err()) })
			return pr, rcancel
		}
		for i := range maxDrains {
			if body, cancel := open(); !h.startDrain(body, cancel) {
				t.Fatalf("drain %d of %d refused", i+1, maxDrains)
			}
		}
		body, cancel := open()
		if h.startDrain(body, cancel) {
			t.Fatalf("drain %d started past the bound of %d", maxDrains+1, maxDrains)
		}
		body.Close()
		cancel()
		synctest.Wait()
		<-time.After(drainWait) // fake time: every drain gives up
		synctest.Wait()
		if n := h.drains.Load(); n != 0 {
			t.Fatalf("%d drains still counted after drainWait", n)
		}
		body, cancel = open()
		if !h.startDrain(body, cancel) {
			t.Fatal("a drain refused after the others ended")
		}
		cancel()
		synctest.Wait()
	})
}

// endBody is a response body that returns io.EOF with its last bytes, as net/http's does when
// the end is in hand, and counts the reads made after it returned io.EOF.
type endBody struct {
	r          *strings.Reader
	ended      bool
	readsAfter int
}

func (b *endBody) Read(p []byte) (int, error) {
	if b.ended {
		b.readsAfter++
	}
	n, err := b.r.Read(p)
	if b.r.Len() == 0 {
		err = io.EOF
		b.ended = true
	}
	return n, err
}

func (*endBody) Close() error { return nil }

// roundTrip is an http.RoundTripper of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// An event stream whose end was read with its answer is done: the call starts no drain (a
// goroutine and a timer per call) to read it again.
func TestRawHTTPStreamEndedWithAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := &endBody{r: strings.NewReader("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"" + rawIDPrefix + "1\",\"result\":{}}\n\n")}
		h := &rawHTTP{life: context.Background(), endpoint: "http://upstream.test/mcp", hc: &http.Client{
			Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
					Body: body, Request: r}, nil
			}),
		}}
		res, err := h.call(context.Background(), "tools/call", json.RawMessage(`{"name":"echo"}`))
		if err != nil || string(res) != "{}" {
			t.Fatalf("call: %s, %v", res, err)
		}
		synctest.Wait()
		if !body.ended || body.readsAfter > 0 {
			t.Fatalf("the body, read to its end (%v) with the answer, was read %d more times after", body.ended, body.readsAfter)
		}
	})
}
