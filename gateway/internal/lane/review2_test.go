package lane

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

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
