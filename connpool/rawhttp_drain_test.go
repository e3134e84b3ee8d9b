package connpool

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
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
