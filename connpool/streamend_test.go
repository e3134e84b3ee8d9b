package connpool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testwait"
)

// TestGetAfterStreamEndStartsNewServer: once a stdio server's stream has ended, the client
// is over even while the process is still dying, so a Get that follows the failed call starts
// a new server instead of handing out the dying one, whose every call fails (a reconnect of
// mcpcap with one attempt then degraded the server). The stream ends with the server's stdout
// closed (hangup, which then lingers) or with a line that is not JSON (garble: the go-sdk fails
// every call in flight and ends the session). The window between the end and the pool's own
// notice is short on an idle machine, so each case goes round several times.
func TestGetAfterStreamEndStartsNewServer(t *testing.T) {
	for _, tool := range []string{"hangup", "garble"} {
		t.Run(tool, func(t *testing.T) {
			p := newTestPool(t, nil)
			cfg := faultCfg(t)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := mustGet(t, p, cfg, GlobalPartition)
			for i := range 10 {
				pid := c.PID()
				if _, err := call(ctx, c, tool, map[string]any{"ms": 2000}); err == nil {
					t.Fatalf("%s answered, want the connection to end", tool)
				}
				p.Release(c)
				c = mustGet(t, p, cfg, GlobalPartition)
				if c.PID() == pid {
					p.Release(c)
					t.Fatalf("round %d: Get after the stream ended handed out the same server (pid %d)", i, pid)
				}
				mustCall(t, c, "echo", map[string]any{"text": "fresh"})
			}
			p.Release(c)
		})
	}
}

// deafServer writes a stdio MCP server that answers initialize, then closes its stdin and
// sleeps with its stdout open: every write to it fails, and no end of stream is ever read.
func deafServer(t *testing.T) ServerConfig {
	t.Helper()
	script := filepath.Join(t.TempDir(), "deaf.sh")
	body := `#!/bin/sh
read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
v=$(printf '%s' "$line" | sed 's/.*"protocolVersion":"\([^"]*\)".*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{},"serverInfo":{"name":"deaf","version":"1"}}}\n' "$id" "$v"
read -r line
exec 0<&-
echo deaf >&2
exec sleep 60
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Name: "deaf", Server: decl.Server{Command: script}}
}

// TestDeafServerEndedAndStopped: a server that can no longer be written to is ended by the
// failed write, and stopped: the pool hands it out no more, and its process does not outlive
// the pool (it was left in no map, closed by nobody, and Close reported it still alive).
func TestDeafServerEndedAndStopped(t *testing.T) {
	p := New(&Options{Subreaper: true, KillGrace: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := deafServer(t)
	c, err := p.Get(ctx, cfg, GlobalPartition)
	if err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "the server to close its stdin", func() bool { return strings.Contains(c.StderrTail(), "deaf") })
	pingCtx, pingCancel := context.WithTimeout(ctx, 5*time.Second)
	defer pingCancel()
	if _, err := c.CallRaw(pingCtx, "ping", nil); err == nil || pingCtx.Err() != nil {
		t.Fatalf("ping to a deaf server: %v, want a failed write", err)
	}
	p.Release(c)
	c2, err := p.Get(ctx, cfg, GlobalPartition)
	if err != nil {
		t.Fatal(err)
	}
	if c2.c == c.c {
		t.Error("the pool handed out the client that could not be written to")
	}
	p.Release(c2)
	closeCtx, closeCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer closeCancel()
	if err := p.Close(closeCtx); err != nil {
		t.Fatalf("pool close: %v", err)
	}
}
