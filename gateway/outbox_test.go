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
		o.send(0, func() { <-release }) // a write to a client that does not read
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

// The outbox holds at most maxOutboxBytes of notifications, the one being sent included;
// past it new ones are dropped, and one larger than the bound is sent when nothing waits.
func TestOutboxBoundedInBytes(t *testing.T) {
	var o outbox
	release := make(chan struct{})
	o.send(maxOutboxBytes/4, func() { <-release }) // being written to a client that does not read
	sent := 0
	for range 8 {
		o.send(maxOutboxBytes/4, func() { sent++ })
	}
	if o.dropped != 5 {
		t.Errorf("%d dropped, want 5: three fit beside the one being sent", o.dropped)
	}
	close(release)
	o.flush(context.Background())
	if sent != 3 {
		t.Errorf("%d sent after the stall, want 3", sent)
	}
	big := make(chan struct{})
	o.send(2*maxOutboxBytes, func() { close(big) })
	<-big
	o.close()
}
