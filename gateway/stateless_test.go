package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessFixture serves a skill root and the fault server as a pool-scoped upstream with
// Options.Stateless, over real HTTP; it returns the gateway, its URL and the skill root.
func statelessFixture(t *testing.T) (*gateway.Gateway, string, string) {
	t.Helper()
	root := t.TempDir()
	writeSkill(t, root, "greet", "Say hello to $ARGUMENTS.")
	g, srv, _ := serveHost(t, "skills:\n  debounce: 50ms\nmcp_servers:\n  fault: {command: "+testserver.Build(t)+"}\n",
		host.Options{SkillDirs: []string{root}}, func(o *gateway.Options) { o.Stateless = true })
	return g, srv.URL, root
}

// TestStatelessServesWithoutSessions: a go-sdk client connects to a stateless gateway and
// lists, calls (passed through and through the go-sdk, with progress) and reads; no
// Mcp-Session-Id is given, no session is kept, and a skill added later shows at the next
// listing. What needs a session is refused naming stateless mode: logging/setLevel,
// resources/subscribe, an upstream's sampling request; GET is 405.
func TestStatelessServesWithoutSessions(t *testing.T) {
	g, url, root := statelessFixture(t)
	ctx := context.Background()
	var mu sync.Mutex
	var progress []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Progress)
			mu.Unlock()
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			t.Error("a stateless gateway forwarded a sampling request")
			return nil, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if id := cs.ID(); id != "" {
		t.Errorf("session id %q, want none", id)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) < 3 {
		t.Errorf("tools: %d, want the fault server's and load_skill", len(tools.Tools))
	}
	for i := range 20 { // while A's progress is sent (more than the socket buffers hold)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hi" {
			t.Fatalf("echo %d: %v %+v", i, err, res)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__progress", Arguments: map[string]any{"steps": 3},
		Meta: mcp.Meta{"progressToken": "p1"}})
	if err != nil || res.IsError {
		t.Fatalf("progress: %v %+v", err, res)
	}
	testwait.For(t, "3 progress notifications", func() bool { mu.Lock(); defer mu.Unlock(); return len(progress) == 3 })
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://greet/notes.md"}); err != nil {
		t.Errorf("read a skill's file: %v", err)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__sample", Arguments: map[string]any{"text": "x"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "server.stateless") {
		t.Errorf("sampling in stateless mode: %v %+v, want a tool error naming server.stateless", err, res)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err == nil || !strings.Contains(err.Error(), "statelessly") {
		t.Errorf("logging/setLevel: %v, want an error naming stateless mode", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://static/hello"}); err == nil || !strings.Contains(err.Error(), "statelessly") {
		t.Errorf("resources/subscribe: %v, want an error naming stateless mode", err)
	}
	if n := g.Sessions(); n != 0 {
		t.Errorf("%d sessions kept, want none", n)
	}

	writeSkill(t, root, "wave", "Wave at $ARGUMENTS.")
	testwait.For(t, "the skill added after start in prompts/list", func() bool {
		ps, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return hasPrompt(ps.Prompts, "wave")
	})

	// A raw call: answered without a session header; GET is 405.
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"raw"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"raw"`) || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("raw call: %d %q session %q, want 200 with the echo and no session", resp.StatusCode, body, resp.Header.Get("Mcp-Session-Id"))
	}
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", resp.StatusCode)
	}
}

func hasPrompt(ps []*mcp.Prompt, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}

// TestStatelessCancelReachesNoOtherClient: in stateless mode every client's request ids are
// its own (each go-sdk client counts from 1), so a notifications/cancelled naming id 1 must
// not cancel another client's call with id 1 passed through on the shared server. Client A's
// call waits in the gate; client B cancels "its" request 1; A's call must still answer.
func TestStatelessCancelReachesNoOtherClient(t *testing.T) {
	dir := t.TempDir()
	logf, gate := filepath.Join(dir, "log"), filepath.Join(dir, "open")
	_, srv, _ := serveHost(t, "mcp_servers:\n  fault: {command: "+testserver.Build(t)+", args: [--log, "+strconv.Quote(logf)+"]}\n",
		host.Options{}, func(o *gateway.Options) { o.Stateless = true })

	type answer struct {
		status int
		msgs   []map[string]any
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault__gate","arguments":{"path":`+strconv.Quote(gate)+`,"key":"a"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{}
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var m map[string]any
		a := answer{status: resp.StatusCode}
		if json.Unmarshal(body, &m) == nil {
			a.msgs = append(a.msgs, m)
		}
		got <- a
	}()
	testwait.For(t, "client A's call in the gate", func() bool {
		b, _ := os.ReadFile(logf)
		return strings.Contains(string(b), "gate ")
	})
	// Client B, a different client, cancels its own request 1.
	status, _, _ := post(t, srv.URL, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, nil)
	if status != http.StatusAccepted {
		t.Errorf("B's notifications/cancelled: %d, want 202", status)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := <-got
	if a.status != http.StatusOK || len(a.msgs) != 1 || !strings.Contains(fmt.Sprint(a.msgs[0]["result"]), "gate-a") {
		t.Errorf("A's call after B cancelled its own request 1: %d %v, want 200 with gate-a", a.status, a.msgs)
	}
	if b, _ := os.ReadFile(logf); strings.Contains(string(b), "gate-cancelled") {
		t.Errorf("A's call was cancelled upstream by B's notification: %s", b)
	}
}

// TestStatelessAfterClose: once the Gateway is closed, a stateless request is refused (503,
// ErrClosed), as before its first request; the closed shared server, its change stream
// stopped, does not go on answering from a stale view.
func TestStatelessAfterClose(t *testing.T) {
	g, url, _ := statelessFixture(t)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}}}`
	if status, _, msgs := post(t, url, "", call, nil); status != http.StatusOK || len(msgs) != 1 || msgs[0]["result"] == nil {
		t.Fatalf("call before Close: %d %v", status, msgs)
	}
	if err := g.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{call, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`} {
		status, _, msgs := post(t, url, "", body, nil)
		if status != http.StatusServiceUnavailable || len(msgs) != 1 || msgs[0]["error"] == nil {
			t.Errorf("%s after Close: HTTP %d, %d messages (an error: %t), want 503 with a JSON-RPC error", body, status, len(msgs), len(msgs) == 1 && msgs[0]["error"] != nil)
		}
	}
}

// TestStatelessCloseWhileOpening: Close does not wait for the shared server's first compile,
// held up by an upstream that hangs in initialize (startup_timeout 10m): the compile gives up
// at Close, as a session's opening does, and the request is refused.
func TestStatelessCloseWhileOpening(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	script := filepath.Join(dir, "hang.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+strconv.Quote(started)+"\nexec "+testserver.Build(t)+" --hang-initialize\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	g, srv, _ := serveHost(t, "mcp_servers:\n  hang: {command: "+strconv.Quote(script)+", startup_timeout: 10m}\n",
		host.Options{}, func(o *gateway.Options) { o.Stateless = true })
	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	testwait.For(t, "the upstream to start", func() bool { _, err := os.Stat(started); return err == nil })
	closed := make(chan error, 1)
	go func() { closed <- g.Close(context.Background()) }()
	select {
	case err := <-closed:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(30 * time.Second): // a liveness bound, not a timing claim
		t.Fatal("Close waits for the stateless server's first compile (the upstream's 10m start)")
	}
	if status := <-answered; status != http.StatusServiceUnavailable {
		t.Errorf("the request during Close: HTTP %d, want 503", status)
	}
}

// TestStatelessStuckClientDelaysNoOther: in stateless mode every request shares one server,
// but a client that stops reading its call's stream (its progress writes block) must not hold
// up another client's call: a call's result waits for the progress queued before it, and that
// must be its own call's only.
func TestStatelessStuckClientDelaysNoOther(t *testing.T) {
	t.Cleanup(gateway.SetWriteStall(10 * time.Minute)) // restored after the fixture closed
	_, url, _ := statelessFixture(t)
	addr := strings.TrimPrefix(url, "http://")
	// Client A: a small receive buffer, and it stops reading once its stream has begun.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault__progress","arguments":{"steps":100000},"_meta":{"progressToken":"a"}}}`
	fmt.Fprintf(nc, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	if _, err := io.ReadFull(nc, make([]byte, 64)); err != nil { // A's stream has begun
		t.Fatal(err)
	}
	// Client B: a call on the go-sdk path (a progress token), answered at once.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a liveness bound, not a timing claim
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 20 { // while A's progress is sent (more than the socket buffers hold)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__echo", Arguments: map[string]any{"text": "b"}, Meta: mcp.Meta{"progressToken": "b"}})
		if err != nil || res.IsError {
			t.Fatalf("B's call %d while A does not read: %v %+v", i, err, res)
		}
	}
}

// TestStatelessCallEndsWithItsRequest: a stateless call on the go-sdk path (it carries a
// progress token) is cancelled upstream when its client drops the request, and when the
// Gateway closes, as a call passed through is: the go-sdk gives its handlers a context that
// outlives the HTTP request, and a call left running would hold the request's handler (and
// the HTTP server's shutdown) until the upstream finished on its own.
func TestStatelessCallEndsWithItsRequest(t *testing.T) {
	for _, end := range []string{"request dropped", "gateway closed"} {
		t.Run(end, func(t *testing.T) {
			logf := filepath.Join(t.TempDir(), "log")
			g, srv, _ := serveHost(t, "mcp_servers:\n  fault: {command: "+testserver.Build(t)+", args: [--log, "+strconv.Quote(logf)+"]}\n",
				host.Options{}, func(o *gateway.Options) { o.Stateless = true })
			ctx, drop := context.WithCancel(context.Background())
			defer drop()
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":60000},"_meta":{"progressToken":"p"}}}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			answered := make(chan struct{})
			go func() {
				defer close(answered)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			testwait.For(t, "the call to begin upstream", func() bool { return logHas(logf, "begin ") })
			if end == "request dropped" {
				drop()
			} else if err := g.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			testwait.For(t, "the call to be cancelled upstream", func() bool { return logHas(logf, "cancelled ") })
			<-answered
		})
	}
}

// TestStatelessRefusesForeignHost: a stateless tools/call (answered without the go-sdk, so
// without its DNS-rebinding check) from a page whose name was rebound to the loopback
// listener — a foreign Host, no Origin — is refused before it reaches an upstream.
func TestStatelessRefusesForeignHost(t *testing.T) {
	_, url, _ := statelessFixture(t)
	for _, tc := range []struct {
		host string
		want int
	}{{"evil.example", http.StatusForbidden}, {"localhost:1", http.StatusOK}} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tc.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("tools/call with Host %q: %d, want %d\n%.300s", tc.host, resp.StatusCode, tc.want, body)
		}
	}
}

// TestStatelessInflightPerExchange: in stateless mode each POST is its own exchange, so
// Options.MaxInflight bounds the requests one POST holds (a batch's), not the replica: with a
// cap of 2, three clients' slow calls all run at once, and a batch of 3 requests is refused
// naming server.max_inflight. Concurrent POSTs are bounded by server.max_connections.
func TestStatelessInflightPerExchange(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "log")
	_, srv, _ := serveHost(t, "mcp_servers:\n  fault: {command: "+testserver.Build(t)+", args: [--log, "+strconv.Quote(logf)+"]}\n",
		host.Options{}, func(o *gateway.Options) { o.Stateless = true; o.MaxInflight = 2 })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow-%d","method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":60000}}}`, i)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			client := &http.Client{Transport: &http.Transport{}} // a connection of its own
			if resp, err := client.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	testwait.For(t, "three clients' sleeps to begin upstream", func() bool {
		b, _ := os.ReadFile(logf)
		return strings.Count(string(b), "begin ") == 3
	})
	cancel() // the slow calls end with their requests
	wg.Wait()
	status, _, data := postBody(t, srv.URL, "", "2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`)
	if !strings.Contains(string(data), "server.max_inflight") || !strings.Contains(string(data), "this POST holds more than the 2 requests") {
		t.Errorf("a batch of 3 requests with 2 allowed: %d %s, want an error naming server.max_inflight and the POST's excess", status, data)
	}
}
