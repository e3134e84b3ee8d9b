package gateway

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestOutboxFlushReturnsAtClose: close drops what is queued, a flush's own mark included; a
// flush waiting behind a stuck send returns at close rather than when its context ends (a
// stateless call's context did not end with the Gateway: Close left its handler, and the
// HTTP server's shutdown, waiting for ever).
func TestOutboxFlushReturnsAtClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var o outbox
		release := make(chan struct{})
		o.send(func() { <-release }) // a write to a client that does not read
		flushed := make(chan struct{})
		go func() { o.flush(context.Background()); close(flushed) }()
		synctest.Wait() // flush waits for its mark, queued behind the stuck send
		o.mu.Lock()
		queued := len(o.q)
		o.mu.Unlock()
		if queued != 1 {
			t.Fatalf("%d queued while flush waits, want its mark", queued)
		}
		closed := make(chan struct{})
		go func() { o.close(); close(closed) }() // waits for the stuck send
		select {
		case <-flushed:
		case <-time.After(20 * time.Second): // the bubble's clock: reached at once if flush stays blocked
			t.Error("flush still waits after close dropped its mark")
		}
		close(release)
		<-closed
	})
}
