package lane

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestPipelined: two requests in one write are answered in order, the second's Serve starting
// only after the first's answer was written.
func TestPipelined(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var log []string
		release := make(chan struct{})
		l := New(Options{Take: func(r *http.Request, body []byte) (Call, bool) {
			name := string(body)
			return callFunc(func(_ context.Context, w *Writer) {
				mu.Lock()
				log = append(log, "serve "+name)
				mu.Unlock()
				if name == "a" {
					<-release
				}
				w.Write(http.StatusOK, nil, []byte(name))
				mu.Lock()
				log = append(log, "wrote "+name)
				mu.Unlock()
			}), true
		}})
		c := servePipe(t, l)
		c.send(rawPost("/", "a") + rawPost("/", "b"))
		synctest.Wait()
		mu.Lock()
		if !slices.Equal(log, []string{"serve a"}) {
			t.Errorf("while a's call runs: %q, want only a's Serve started", log)
		}
		mu.Unlock()
		close(release)
		for _, want := range []string{"a", "b"} {
			if got, ok := c.answer(); got != want || !ok {
				t.Fatalf("answer %q (%v), want %q", got, ok, want)
			}
		}
		synctest.Wait()
		mu.Lock()
		if want := []string{"serve a", "wrote a", "serve b", "wrote b"}; !slices.Equal(log, want) {
			t.Errorf("%q, want %q", log, want)
		}
		mu.Unlock()
		c.nc.Close()
	})
}

// TestClientGone: a client that closes its connection during a call ends the call's context
// with errClientGone, and the lane closes the connection and forgets it.
func TestClientGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cause := make(chan error, 1)
		l := New(Options{IdleTimeout: time.Minute, Take: func(r *http.Request, body []byte) (Call, bool) {
			return callFunc(func(ctx context.Context, w *Writer) {
				<-ctx.Done()
				cause <- context.Cause(ctx)
			}), true
		}})
		c := servePipe(t, l)
		c.send(rawPost("/", "x"))
		synctest.Wait()
		if c.srv.closed.Load() || len(cause) > 0 {
			t.Fatal("the call ended or the connection closed before the client went")
		}
		c.nc.Close()
		synctest.Wait()
		if err := <-cause; !errors.Is(err, errClientGone) {
			t.Errorf("the call's context ended with %v, want errClientGone", err)
		}
		if !c.srv.closed.Load() {
			t.Error("the lane did not close the connection")
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.conns) != 0 {
			t.Errorf("the lane still has %d connections", len(l.conns))
		}
	})
}

// TestIdleTimeout: a connection with no request for IdleTimeout closes.
func TestIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Take: takeLane, IdleTimeout: 10 * time.Second})
		c := servePipe(t, l)
		time.Sleep(5 * time.Second)
		c.send(rawPost("/lane", "x"))
		if got, _ := c.answer(); got != "x" {
			t.Fatalf("answer %q, want x", got)
		}
		time.Sleep(10*time.Second - 1)
		synctest.Wait()
		if c.srv.closed.Load() {
			t.Fatal("closed before IdleTimeout passed since the last answer")
		}
		time.Sleep(1)
		synctest.Wait()
		if !c.srv.closed.Load() {
			t.Fatal("not closed IdleTimeout after the last answer")
		}
	})
}

// TestIdleTimeoutSparesACall: a call longer than IdleTimeout keeps its connection, and the
// idle timeout runs from its answer.
func TestIdleTimeoutSparesACall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{IdleTimeout: 10 * time.Second, Take: func(r *http.Request, body []byte) (Call, bool) {
			return callFunc(func(ctx context.Context, w *Writer) {
				time.Sleep(25 * time.Second)
				w.Write(http.StatusOK, nil, []byte("late"))
			}), true
		}})
		c := servePipe(t, l)
		c.send(rawPost("/", "x"))
		time.Sleep(25*time.Second - 1)
		synctest.Wait()
		if c.srv.closed.Load() {
			t.Fatal("closed while its call ran")
		}
		if got, ok := c.answer(); got != "late" || !ok {
			t.Fatalf("answer %q (%v), want late", got, ok)
		}
		time.Sleep(10*time.Second - 1)
		synctest.Wait()
		if c.srv.closed.Load() {
			t.Fatal("closed before IdleTimeout passed since the answer")
		}
		time.Sleep(1)
		synctest.Wait()
		if !c.srv.closed.Load() {
			t.Fatal("not closed IdleTimeout after the answer")
		}
	})
}

// TestHeaderTimeout: a request begun and not whole after HeaderTimeout closes the connection.
func TestHeaderTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Take: takeLane, IdleTimeout: 10 * time.Second, HeaderTimeout: 2 * time.Second})
		c := servePipe(t, l)
		time.Sleep(time.Second)
		c.send("POST /lane HTTP/1.1\r\nHost: x\r\n")
		time.Sleep(2*time.Second - 1)
		synctest.Wait()
		if c.srv.closed.Load() {
			t.Fatal("closed before HeaderTimeout passed")
		}
		time.Sleep(1)
		synctest.Wait()
		if !c.srv.closed.Load() {
			t.Fatal("not closed HeaderTimeout after the request began")
		}
	})
}

// TestHeaderTimeoutFromRequestStart: the header timeout runs from when each request begins,
// whatever an earlier request or the idle timeout set, as net/http's ReadHeaderTimeout does.
func TestHeaderTimeoutFromRequestStart(t *testing.T) {
	head := "POST /lane HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n"
	for _, tc := range []struct {
		name          string
		idle, header  time.Duration
		first, second time.Duration // when the second request's head, then its body, arrive
	}{
		// The first request's header deadline (t=2s) must not cut the second, begun at 1.5s.
		{"after a request that set one", 10 * time.Second, 2 * time.Second, 1500 * time.Millisecond, 3 * time.Second},
		// A request begun at 1.5s has until 6.5s, past the idle deadline (3s).
		{"longer than IdleTimeout", 3 * time.Second, 5 * time.Second, 1500 * time.Millisecond, 6 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{Take: takeLane, IdleTimeout: tc.idle, HeaderTimeout: tc.header})
				c := servePipe(t, l)
				c.send(head) // the first request, in two writes
				time.Sleep(time.Second)
				c.send("1")
				if got, ok := c.answer(); got != "1" || !ok {
					t.Fatalf("first answer %q (%v), want 1", got, ok)
				}
				time.Sleep(tc.first - time.Second)
				c.send(head)
				time.Sleep(tc.second - tc.first)
				c.send("2")
				if got, ok := c.answer(); got != "2" || !ok {
					t.Fatalf("second answer %q (%v): the connection closed before the header timeout passed", got, ok)
				}
				c.nc.Close()
			})
		})
	}
}

// TestHeaderTimeoutWithoutIdleTimeout: HeaderTimeout bounds a request begun with no
// IdleTimeout too, and the deadline it set does not end the connection once the request is
// whole: a call that outlasts it is answered, and the connection stays open after.
func TestHeaderTimeoutWithoutIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		l := New(Options{HeaderTimeout: 2 * time.Second, Take: func(r *http.Request, body []byte) (Call, bool) {
			return callFunc(func(ctx context.Context, w *Writer) {
				<-release
				w.Write(200, nil, []byte("ok"))
			}), true
		}})
		c := servePipe(t, l)
		c.send(rawPost("/lane", "x"))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if c.srv.closed.Load() {
			t.Fatal("closed during a call, by the deadline of a request already whole")
		}
		close(release)
		if got := <-c.answers; got != "ok" {
			t.Fatalf("answer %q", got)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if c.srv.closed.Load() {
			t.Fatal("an idle connection closed with no IdleTimeout")
		}
		c.send("POST /lane HTTP/1.1\r\nHost: x\r\n")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if !c.srv.closed.Load() {
			t.Fatal("not closed HeaderTimeout after the request began, with no IdleTimeout")
		}
	})
}

// TestHeaderTimeoutAfterACall: a request begun during a call longer than HeaderTimeout has
// HeaderTimeout from the call's answer (net/http reads it only then), with or without an
// IdleTimeout: the deadline that fired during the call is not dropped nor pushed past it.
func TestHeaderTimeoutAfterACall(t *testing.T) {
	for _, idle := range []time.Duration{0, time.Hour} {
		t.Run(idle.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{IdleTimeout: idle, HeaderTimeout: 2 * time.Second, Take: func(r *http.Request, body []byte) (Call, bool) {
					return callFunc(func(ctx context.Context, w *Writer) {
						time.Sleep(5 * time.Second)
						w.Write(http.StatusOK, nil, []byte("ok"))
					}), true
				}})
				c := servePipe(t, l)
				c.send(rawPost("/", "x"))
				time.Sleep(time.Second)
				c.send("POST / HTTP/1.1\r\nHost: x\r\n") // begun during the call, never whole
				if got, ok := c.answer(); got != "ok" || !ok {
					t.Fatalf("answer %q (%v), want ok", got, ok)
				}
				time.Sleep(2*time.Second - 1)
				synctest.Wait()
				if c.srv.closed.Load() {
					t.Fatal("closed before HeaderTimeout passed since the answer")
				}
				time.Sleep(1)
				synctest.Wait()
				if !c.srv.closed.Load() {
					t.Fatal("not closed HeaderTimeout after the answer, with a request begun and not whole")
				}
			})
		})
	}
}
