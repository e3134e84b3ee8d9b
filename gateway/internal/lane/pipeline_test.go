package lane

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/agentpool/agentpool/internal/testwait"
)

// TestPipelinedRoundTripsStayFlat: a client that pipelines requests that move its connection
// between net/http and the lane, again and again, is answered in order, and the lane's
// connection is the one accepted at each return, not wrapped once more per round trip (a
// wrapper per round trip, each with a reader of its own, would grow without bound).
func TestPipelinedRoundTripsStayFlat(t *testing.T) {
	s := newServer(t, Options{})
	c := dial(t, s.addr)
	const rounds = 20
	pad := strings.Repeat(".", 1000) // more than net/http's 4 KiB reader holds, in all
	var reqs strings.Builder
	for i := range rounds {
		reqs.WriteString(rawPost("/net", "n"+strconv.Itoa(i)+pad))
		reqs.WriteString(rawPost("/lane", "l"+strconv.Itoa(i)+pad))
	}
	c.write(reqs.String())
	for i := range rounds {
		for _, want := range []string{"n", "l"} {
			resp, body := c.read()
			if body != want+strconv.Itoa(i)+pad {
				t.Fatalf("answer %d: %.10q (%v), want %.10q", 2*i, body, resp.Header, want+strconv.Itoa(i))
			}
		}
	}
	// A connection the lane handed back is forgotten once its goroutine has returned.
	testwait.For(t, "one lane connection", func() bool {
		s.l.mu.Lock()
		defer s.l.mu.Unlock()
		return len(s.l.conns) == 1
	})
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	for lc := range s.l.conns {
		depth := 0
		for nc := lc.nc; ; depth++ {
			h, ok := nc.(*handed)
			if !ok {
				break
			}
			nc = h.Conn
		}
		if depth > 0 {
			t.Errorf("the lane's connection is wrapped %d deep after %d round trips, want the accepted one", depth, rounds)
		}
		if _, ok := lc.nc.(*net.TCPConn); !ok {
			t.Errorf("the lane's connection is a %T, want the accepted *net.TCPConn", lc.nc)
		}
	}
}

// TestLargeRequestLetsGo: once a request larger than the first reader has been answered, the
// connection holds neither the grown reader nor a copy of that body (the call's, not the
// connection's) while it waits.
func TestLargeRequestLetsGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Take: takeLane})
		c := servePipe(t, l)
		big := strings.Repeat("b", 30<<10)
		c.send(rawPost("/lane", big))
		if got, _ := c.answer(); got != big {
			t.Fatalf("answer of %d bytes, want %d", len(got), len(big))
		}
		synctest.Wait() // the connection waits for its next request
		l.mu.Lock()
		defer l.mu.Unlock()
		for lc := range l.conns {
			if lc.br.Size() > firstBuffer {
				t.Errorf("a connection waiting after a %d-byte request holds a %d-byte reader", len(big), lc.br.Size())
			}
		}
	})
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
