package main

import (
	"context"
	"html"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStatusPageTellsTheTruth: the page of a real serve shows a scope: session server's
// processes (every session's pid) and its tools and reconnects summed over its sessions; lists
// the tools a client sees, session servers' included; labels sessions on /mcp "session"; retries
// a degraded server in the background when its next attempt is due, so the page's next retry
// is one that happens; and shows an upstream's control characters (an OSC sequence on its
// stderr) as visible symbols, never raw.
func TestStatusPageTellsTheTruth(t *testing.T) {
	t.Parallel()
	fault := testserver.Build(t)
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, `mcp_servers:
  own: {command: `+fault+`, scope: session}
  broken:
    command: sh
    args: [-c, "echo start >> `+starts+`; printf '\\033]0;pwned\\007 broken-marker\\n' >&2; exit 3"]
    retry: {attempts: 1, backoff: 10ms}
server: {ready_when_degraded: true}
`)
	base, _ := startServeLogged(t, cfg)
	waitReady(t, base)
	// No client asks: the retries are serve's own.
	testwait.Within(t, time.Minute, "serve to retry the degraded server", func() bool { return len(lines(t, starts, "start")) >= 3 })

	var pids []string
	tools := 0
	for range 3 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "page-reader", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		pids = append(pids, strconv.Itoa(pidOf(t, cs, "own__pid")))
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		tools = 0
		for _, tool := range res.Tools {
			if strings.HasPrefix(tool.Name, "own__") {
				tools++
			}
		}
	}
	raw := httpGet(t, base+"/")
	if strings.ContainsAny(raw, "\x1b\x07") {
		t.Errorf("the page holds raw control characters: %q", raw[strings.IndexAny(raw, "\x1b\x07")-20:][:60])
	}
	page := html.UnescapeString(raw)
	if r := row(page, "server", "<code>broken</code>"); !strings.Contains(r, "broken-marker") || !strings.Contains(r, "\u241b") {
		t.Errorf("the degraded server's row does not show its error with ESC made visible: %q", r)
	}
	own := row(page, "server", "<code>own</code>")
	for _, pid := range pids {
		if !strings.Contains(own, pid) {
			t.Errorf("the session-scoped server's row lacks pid %s of one of its sessions: %q", pid, own)
		}
	}
	if want := "<td>" + strconv.Itoa(3*tools) + "</td>"; !strings.Contains(own, want) {
		t.Errorf("the session-scoped server's row does not sum its %d tools over 3 sessions (%s): %q", tools, want, own)
	}
	if row(page, "tool", "<code>own__echo</code>") == "" {
		t.Errorf("the Tools section lacks own__echo, which clients see")
	}
	if s := row(page, "session", "page-reader"); !strings.Contains(s, "<td>session</td>") {
		t.Errorf("a session on /mcp is not labelled session: %q", s)
	}
}

// TestStatusPageWhileStarting: while an eager server is still starting, the page labels it
// "connecting" (not "idle") and says the pool's view waits for it, naming it, rather than a
// bare deadline error.
func TestStatusPageWhileStarting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, `mcp_servers:
  slowstart: {command: sh, args: [-c, "sleep 120"], startup_timeout: 120s}
`)
	base, _ := startServeLogged(t, cfg)
	var page string
	testwait.Within(t, time.Minute, "the page to show the starting server", func() bool {
		page = html.UnescapeString(httpGet(t, base+"/"))
		return strings.Contains(row(page, "server", "<code>slowstart</code>"), "connecting")
	})
	if strings.Contains(page, "deadline exceeded") || !strings.Contains(page, "still starting: slowstart") {
		t.Errorf("the page does not say the view waits for slowstart to start: %q", page[strings.Index(page, "<main"):])
	}
}
