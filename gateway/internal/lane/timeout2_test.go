package lane

import (
	"context"
	"io"
	"net/http"
	"strings"
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

// TestPrefixedLetsGo: a prefixed reader read past its prefix holds no part of it, so that a
// connection that came back from net/http does not keep what was unread then for good.
func TestPrefixedLetsGo(t *testing.T) {
	head := append(make([]byte, 0, 64), "head"...) // as unwrap's: room to spare
	p := &prefixed{p: head, r: strings.NewReader("tail")}
	b, err := io.ReadAll(p)
	if string(b) != "headtail" || err != nil {
		t.Fatalf("read %q, %v; want headtail", b, err)
	}
	if cap(p.p) != 0 {
		t.Errorf("the prefix read holds an array of %d bytes, want none", cap(p.p))
	}
}
