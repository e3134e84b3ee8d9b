package gateway

import (
	"context"
	"testing"
	"time"
)

// TestOutboxFlushReturnsAtClose: close drops what is queued, a flush's own mark included; a
// flush waiting behind a stuck send returns at close rather than when its context ends (a
// stateless call's context did not end with the Gateway: Close left its handler, and the
// HTTP server's shutdown, waiting for ever).
func TestOutboxFlushReturnsAtClose(t *testing.T) {
	var o outbox
	release := make(chan struct{})
	o.send(func() { <-release }) // a write to a client that does not read
	flushed := make(chan struct{})
	go func() { o.flush(context.Background()); close(flushed) }()
	for queued := false; !queued; time.Sleep(time.Millisecond) { // flush's mark is queued
		o.mu.Lock()
		queued = len(o.q) == 1
		o.mu.Unlock()
	}
	closed := make(chan struct{})
	go func() { o.close(); close(closed) }() // waits for the stuck send
	select {
	case <-flushed:
	case <-time.After(20 * time.Second): // a liveness bound, not a timing claim
		t.Error("flush still waits after close dropped its mark")
	}
	close(release)
	<-closed
}
