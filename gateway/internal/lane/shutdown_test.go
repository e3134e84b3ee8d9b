package lane

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// TestShutdownGraceful: Shutdown closes idle connections at once, lets a call in flight answer
// and then closes its connection, and returns nil; Serve after it closes the connection.
func TestShutdownGraceful(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		// No IdleTimeout: no timer that closes a connection while the bubble's clock jumps.
		l := New(Options{Take: func(r *http.Request, body []byte) (Call, bool) {
			return callFunc(func(ctx context.Context, w *Writer) {
				<-release
				w.Write(http.StatusOK, nil, body)
			}), true
		}})
		idle, busy := servePipe(t, l), servePipe(t, l)
		busy.send(rawPost("/", "in flight"))
		synctest.Wait()
		done := make(chan error, 1)
		go func() { done <- l.Shutdown(context.Background()) }()
		synctest.Wait()
		if !idle.srv.closed.Load() {
			t.Error("the idle connection is open after Shutdown began")
		}
		if busy.srv.closed.Load() || len(done) > 0 {
			t.Fatal("the call's connection closed, or Shutdown returned, before the call answered")
		}
		close(release)
		if got, ok := busy.answer(); got != "in flight" || !ok {
			t.Fatalf("answer %q (%v), want the call's", got, ok)
		}
		synctest.Wait()
		if !busy.srv.closed.Load() {
			t.Error("the call's connection is open after its answer")
		}
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		default:
			t.Fatal("Shutdown has not returned after the last call answered")
		}
		late := servePipe(t, l)
		if !late.srv.closed.Load() {
			t.Error("Serve after Shutdown left the connection open")
		}
	})
}

// TestShutdownPastCtx: a call that does not end makes Shutdown return ctx's error once ctx
// ends, and its context ends with errShutdown.
func TestShutdownPastCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cause := make(chan error, 1)
		l := New(Options{Take: func(r *http.Request, body []byte) (Call, bool) {
			return callFunc(func(ctx context.Context, w *Writer) {
				<-ctx.Done()
				cause <- context.Cause(ctx)
			}), true
		}})
		c := servePipe(t, l)
		c.send(rawPost("/", "x"))
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := l.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown: %v, want context.DeadlineExceeded", err)
		}
		if err := <-cause; !errors.Is(err, errShutdown) {
			t.Errorf("the call's context ended with %v, want errShutdown", err)
		}
		synctest.Wait()
		if !c.srv.closed.Load() {
			t.Error("the connection is open")
		}
	})
}

// TestShutdownOverTCP: a lane connection of a real server closes at Shutdown.
func TestShutdownOverTCP(t *testing.T) {
	s := newServer(t, Options{})
	c := dial(t, s.addr)
	c.write(rawPost("/net", "x"))
	c.read()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.l.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	c.wantEOF()
}
