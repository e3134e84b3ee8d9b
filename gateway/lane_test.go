package gateway_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// laneServer is a gateway whose http.Server serves Routes.Listen's listener, as serve's does.
type laneServer struct {
	g    *gateway.Gateway
	url  string
	addr string

	mu   sync.Mutex
	news map[string]int // by client address: connections net/http took (accepted, or handed back)
}

// taken returns how many times net/http took a connection from addr: once when accepted, and
// once more each time the lane handed it back (before serving its request).
func (ls *laneServer) taken(addr string) int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.news[addr]
}

// serveLane serves the fault server as a pool-scoped upstream, with options set changes,
// through the lane, on 127.0.0.1. Everything is closed when t ends.
func serveLane(t *testing.T, set func(*gateway.Options)) *laneServer {
	t.Helper()
	g, h := buildGateway(t, "mcp_servers:\n  fault: {command: "+testserver.Build(t)+"}\n", host.Options{}, set)
	return serveGatewayLane(t, g, h.Close)
}

// serveGatewayLane serves g through the lane on 127.0.0.1; g, then what closeAlso closes, are
// closed when t ends.
func serveGatewayLane(t *testing.T, g *gateway.Gateway, closeAlso func(context.Context) error) *laneServer {
	t.Helper()
	ls := &laneServer{g: g, news: map[string]int{}}
	routes := gateway.Mux(g, nil)
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, stop := routes.Listen(inner, time.Minute, 10*time.Second)
	srv := &http.Server{Handler: routes, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateNew {
				ls.mu.Lock()
				ls.news[c.RemoteAddr().String()]++
				ls.mu.Unlock()
			}
		}}
	served := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(served) }()
	ls.addr = inner.Addr().String()
	ls.url = "http://" + ls.addr + gateway.PoolPath
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = stop(ctx)
		<-served
		if err := g.Close(ctx); err != nil {
			t.Errorf("gateway close: %v", err)
		}
		if err := closeAlso(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return ls
}

// laneCall is a raw POST of a tools/call of fault__echo in session sid (none: ""), with extra
// header lines.
func laneCall(sid, text string, extra ...string) string {
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"` + text + `"}}}`
	head := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Mcp-Protocol-Version: 2025-06-18\r\n"
	if sid != "" {
		head += "Mcp-Session-Id: " + sid + "\r\n"
	}
	for _, e := range extra {
		head += e + "\r\n"
	}
	return head + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// laneAnswer reads one answer from br: its status and body.
func laneAnswer(t *testing.T, br *bufio.Reader) (int, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp.StatusCode, string(b)
}

// On a connection the lane serves, a call with a foreign Origin or Host, or without the token,
// is refused as on net/http (403, 401), one to a path no Gateway serves is 404, and a plain
// one is answered on the lane.
func TestLaneKeepsTheHTTPChecks(t *testing.T) {
	const token = "s3cret"
	ls := serveLane(t, func(o *gateway.Options) { o.Token = token })
	cs, _ := connect(t, ls.url, &http.Client{Transport: bearer{token}})
	auth := "Authorization: Bearer " + token
	testwait.For(t, "the session to pass calls through", func() bool {
		_, hdr, _ := post(t, ls.url, cs.ID(), `{"jsonrpc":"2.0","id":"probe","method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"probe"}}}`,
			map[string]string{"Authorization": "Bearer " + token})
		return isJSON(hdr)
	})
	nc, err := net.Dial("tcp", ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	send := func(req string) (int, string) {
		t.Helper()
		if _, err := io.WriteString(nc, req); err != nil {
			t.Fatal(err)
		}
		return laneAnswer(t, br)
	}
	if st, body := send(laneCall(cs.ID(), "first", auth)); st != http.StatusOK || !strings.Contains(body, "first") {
		t.Fatalf("first call: %d %s", st, body)
	}
	if st, body := send(laneCall(cs.ID(), "second", auth)); st != http.StatusOK || !strings.Contains(body, "second") {
		t.Fatalf("second call: %d %s", st, body)
	}
	if n := ls.taken(nc.LocalAddr().String()); n != 1 {
		t.Fatalf("net/http took the connection %d times, want once: the second call was not answered on the lane", n)
	}
	// Each refusal comes on the lane: the call before it, answered by net/http after the last
	// refusal, moved the connection back.
	onLane := func() {
		t.Helper()
		if st, body := send(laneCall(cs.ID(), "ok", auth)); st != http.StatusOK {
			t.Fatalf("a plain call: %d %s", st, body)
		}
	}
	for _, tc := range []struct {
		extra []string
		want  int
	}{
		{[]string{auth, "Origin: http://evil.example"}, http.StatusForbidden},
		{[]string{auth, "Host: evil.example"}, http.StatusForbidden},
		{nil, http.StatusUnauthorized},
		{[]string{"Authorization: Bearer wrong"}, http.StatusUnauthorized},
	} {
		onLane()
		req := laneCall(cs.ID(), "bad", tc.extra...)
		if strings.Contains(strings.Join(tc.extra, " "), "Host:") {
			req = strings.Replace(req, "Host: 127.0.0.1\r\n", "", 1)
		}
		if st, body := send(req); st != tc.want {
			t.Errorf("%q: %d %s, want %d", tc.extra, st, body, tc.want)
		}
	}
	// A path no Gateway serves goes back to net/http, which answers it as the route does.
	for _, path := range []string{"/nowhere", gateway.AgentsPath + "nobody", gateway.PoolPath + "/"} {
		onLane()
		req := strings.Replace(laneCall(cs.ID(), "lost", auth), "POST "+gateway.PoolPath+" ", "POST "+path+" ", 1)
		if st, body := send(req); st != http.StatusNotFound {
			t.Errorf("a call to %s: %d %s, want 404", path, st, body)
		}
	}
	if st, body := send(laneCall(cs.ID(), "again", auth)); st != http.StatusOK || !strings.Contains(body, "again") {
		t.Fatalf("call after the refusals: %d %s", st, body)
	}
}

// A stateless gateway's calls are not the lane's (its Take refuses them all): their
// connection stays on net/http rather than going to the lane and back at each call.
func TestLaneNotForStateless(t *testing.T) {
	ls := serveLane(t, func(o *gateway.Options) { o.Stateless = true })
	nc, err := net.Dial("tcp", ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	for _, text := range []string{"one", "two", "three"} {
		if _, err := io.WriteString(nc, laneCall("", text)); err != nil {
			t.Fatal(err)
		}
		if st, body := laneAnswer(t, br); st != http.StatusOK || !strings.Contains(body, text) {
			t.Fatalf("call %s: %d %s", text, st, body)
		}
	}
	if n := ls.taken(nc.LocalAddr().String()); n != 1 {
		t.Errorf("net/http took the connection %d times, want once (the lane handed it back %d times)", n, n-1)
	}
}
