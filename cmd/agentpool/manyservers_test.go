package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manyServersConfig writes a config declaring n distinct stdio servers (the faultserver with
// distinct args) and nothing else, so every setting is the default.
func manyServersConfig(t *testing.T, n int) string {
	t.Helper()
	bin := testserver.Build(t)
	var b strings.Builder
	b.WriteString("mcp_servers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  s%d: {command: %s, args: [--stderr, server-%d]}\n", i, bin, i)
	}
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, path, b.String())
	return path
}

// TestManyServersAnswer: a config of 60 servers, more than pool.max_clients (20), answers at
// the defaults: `tools list` lists every server's tools, and a client of `serve` gets its
// initialize answered and sees them too. The servers the config declares do not count against
// the cap, which is for what sessions and skills add.
func TestManyServersAnswer(t *testing.T) {
	t.Parallel()
	const n = 60
	cfg := manyServersConfig(t, n)

	out, errOut, err := runCLIWithin(t, 2*time.Minute, "--no-default-roots", "--config", cfg, "tools", "list")
	if err != nil {
		t.Fatalf("tools list: %v\n%s", err, errOut)
	}
	for _, s := range []string{"s0__echo", "s19__echo", "s20__echo", "s59__echo"} {
		if !strings.Contains(out, s) {
			t.Errorf("tools list lacks %s:\n%s", s, out)
		}
	}

	cmd := exec.Command("agentpool", "--no-default-roots", "--config", cfg, "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	url := startServeCmd(t, cmd)
	type result struct {
		tools int
		err   error
	}
	got := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "many", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			got <- result{err: fmt.Errorf("initialize: %w", err)}
			return
		}
		defer cs.Close()
		echoes := 0
		for tool, err := range cs.Tools(ctx, nil) { // every page
			if err != nil {
				got <- result{err: fmt.Errorf("tools/list: %w", err)}
				return
			}
			if strings.HasSuffix(tool.Name, "__echo") {
				echoes++
			}
		}
		got <- result{tools: echoes}
	}()
	var r result
	testwait.Within(t, 2*time.Minute, "a client of serve to initialize and list tools", func() bool {
		select {
		case r = <-got:
			return true
		default:
			return false
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.tools != n {
		t.Fatalf("a client of serve sees the echo tool of %d servers, want %d", r.tools, n)
	}
}
