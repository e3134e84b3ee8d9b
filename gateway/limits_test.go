package gateway_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// One OAuth subject cannot take every session: past Options.MaxSessionsPerUser (16 by default)
// its initialize is refused with a JSON-RPC error naming server.max_sessions_per_user, while
// another subject still opens sessions; a session ended frees a place.
func TestSessionsCappedPerUser(t *testing.T) {
	tokens := &fakeTokens{}
	a := &gateway.Auth{Verify: tokens.verify, AuthorizationServers: []string{"https://idp.example"}}
	_, srv, _ := serveHost(t, "skills:\n  dirs: []\n", host.Options{}, func(o *gateway.Options) { o.Auth = a })
	open := func(user string) (string, map[string]any) {
		t.Helper()
		status, hdr, msgs := post(t, srv.URL, "", initBody, authHeader(user+":mcp"))
		if status != http.StatusOK {
			t.Fatalf("initialize of %s: %d %v", user, status, msgs)
		}
		return hdr.Get("Mcp-Session-Id"), rpcError(msgs)
	}
	var alices []string
	for i := range gateway.DefaultMaxSessionsPerUser {
		sid, e := open("alice")
		if e != nil || sid == "" {
			t.Fatalf("alice's session %d: %v", i+1, e)
		}
		alices = append(alices, sid)
	}
	if sid, e := open("alice"); e == nil || sid != "" {
		t.Fatalf("alice's session %d was opened", gateway.DefaultMaxSessionsPerUser+1)
	} else if msg, _ := e["message"].(string); !strings.Contains(msg, "server.max_sessions_per_user") || e["code"] != float64(-32000) {
		t.Errorf("alice refused with %v, want -32000 naming server.max_sessions_per_user", e)
	}
	if sid, e := open("bob"); e != nil || sid == "" {
		t.Errorf("bob refused while alice is at her cap: %v", e)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	req.Header.Set("Mcp-Session-Id", alices[0])
	req.Header.Set("Authorization", "Bearer alice:mcp")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sid, e := open("alice"); e != nil || sid == "" {
		t.Errorf("alice refused after ending a session: %v", e)
	}
}

// The processes of session-scoped servers are capped across sessions (pool.max_session_processes):
// a session that would pass the cap is refused at initialize like past the other caps on
// sessions (HTTP 200, a JSON-RPC error naming the key), and the sessions within it go on.
func TestSessionProcessesCapped(t *testing.T) {
	bin := testserver.Build(t)
	_, srv, _ := serveHost(t, "pool: {max_session_processes: 1}\nmcp_servers:\n  fault: {command: "+bin+", scope: session}\n", host.Options{}, nil)
	a, _ := connect(t, srv.URL, nil)
	status, _, msgs := post(t, srv.URL, "", initBody, nil)
	if e := rpcError(msgs); status != http.StatusOK || e == nil || !strings.Contains(e["message"].(string), "pool.max_session_processes") {
		t.Errorf("a second session with max_session_processes 1: %d %v, want a JSON-RPC error naming the key", status, msgs)
	}
	if got := call(t, a, "fault__echo", map[string]any{"text": "still here"}); got != "still here" {
		t.Errorf("the first session: %q", got)
	}
}

// A client that exits without DELETE (its GET stream closed) has its session, and its
// session-scoped server's process, ended after SessionGrace without a request, long before the
// idle timeout; a client whose stream is open keeps its session.
func TestGoneClientEndsAfterGrace(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.SessionGrace = 300 * time.Millisecond })
	kept, _ := connect(t, f.url, nil) // the go-sdk client holds its GET stream open
	sid := rawSession(t, f.url, `{}`)
	_, _, msgs := post(t, f.url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault__pid","arguments":{}}}`, nil)
	pid := 0
	if len(msgs) == 1 {
		if res, ok := msgs[0]["result"].(map[string]any); ok {
			if c, ok := res["content"].([]any); ok && len(c) == 1 {
				pid, _ = strconv.Atoi(c[0].(map[string]any)["text"].(string))
			}
		}
	}
	if pid == 0 {
		t.Fatalf("tools/call pid: %v", msgs)
	}
	ctx, drop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	drop() // the client process is killed
	resp.Body.Close()
	testwait.For(t, "the gone client's session to end", func() bool { return f.g.Sessions() == 1 })
	testwait.For(t, "its server process to end", func() bool { return !testwait.Alive(pid) })
	if got := call(t, kept, "fault__echo", map[string]any{"text": "here"}); got != "here" {
		t.Errorf("the client with its stream open: %q", got)
	}
}

// A DELETE the go-sdk refuses (here for its protocol version header) still ends the session,
// whose calls it has ended already: a session left behind, no longer counted against its
// user's cap, would let one user open sessions past server.max_sessions_per_user.
func TestRefusedDeleteEndsTheSession(t *testing.T) {
	tokens := &fakeTokens{}
	a := &gateway.Auth{Verify: tokens.verify, AuthorizationServers: []string{"https://idp.example"}}
	g, srv, _ := serveHost(t, "skills:\n  dirs: []\n", host.Options{}, func(o *gateway.Options) {
		o.Auth = a
		o.MaxSessionsPerUser = 1
	})
	_, hdr, msgs := post(t, srv.URL, "", initBody, authHeader("alice:mcp"))
	sid := hdr.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("alice's session: %v", msgs)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "1999-01-01")
	req.Header.Set("Authorization", "Bearer alice:mcp")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		t.Fatalf("DELETE with protocol version 1999-01-01: %d, want it refused", resp.StatusCode)
	}
	post(t, srv.URL, "", initBody, authHeader("alice:mcp"))
	testwait.For(t, "alice to have at most 1 live session", func() bool { return g.Sessions() <= 1 })
}
