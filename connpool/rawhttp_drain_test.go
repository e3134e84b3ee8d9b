package connpool

import (
	"context"
	"io"
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
