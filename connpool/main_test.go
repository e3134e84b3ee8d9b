package connpool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.Main()                  // the sandboxed servers' entry point: this binary starts them
	testserver.UseSandboxLauncher() // sandboxed servers start as an installed agentpool's do
	goleak.VerifyTestMain(m)
}

// newTestPool returns a subreaper pool closed (and checked) at cleanup.
func newTestPool(t testing.TB, o *Options) *Pool {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	o.Subreaper = true
	if o.KillGrace == 0 {
		o.KillGrace = 500 * time.Millisecond
	}
	p := New(o)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("pool close: %v", err)
		}
	})
	return p
}

// faultCfg describes a faultserver started with args.
func faultCfg(t testing.TB, args ...string) ServerConfig {
	return ServerConfig{Name: "fault", Server: decl.Server{Command: testserver.Build(t), Args: args}}
}

func call(ctx context.Context, c *Conn, tool string, args map[string]any) (string, error) {
	res, err := c.Session().CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool %s: isError: %v", tool, res.Content)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), nil
}

func mustCall(t testing.TB, c *Conn, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := call(ctx, c, tool, args)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return s
}

func mustGet(t testing.TB, p *Pool, cfg ServerConfig, partition string) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := p.Get(ctx, cfg, partition)
	if err != nil {
		t.Fatalf("get %s/%s: %v", partition, cfg.Name, err)
	}
	return c
}

// groupProcs lists the processes (including zombies) whose process group is
// pgid, as "pid:state" strings.
func groupProcs(t testing.TB, pgid int) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, fmt.Sprintf("%d:%s", pid, f[0]))
		}
	}
	return out
}

// waitGroupGone polls until no process (zombie or not) is left in pgid.
func waitGroupGone(t testing.TB, pgid int) {
	t.Helper()
	var left []string
	defer func() {
		if len(left) > 0 {
			t.Logf("process group %d still has %v", pgid, left)
		}
	}()
	testwait.Within(t, 15*time.Second, fmt.Sprintf("process group %d to be empty", pgid), func() bool {
		left = groupProcs(t, pgid)
		return len(left) == 0
	})
}

func waitDone(t testing.TB, c *Conn) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("Done not closed")
	}
}

func isStartErr(err error) bool { return errors.Is(err, ErrStart) }
