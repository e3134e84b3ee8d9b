package connpool

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConfigureClient checks the hook runs once per started client and that its error fails the
// start (naming it) without caching the failure.
func TestConfigureClient(t *testing.T) {
	var calls atomic.Int32
	var fail atomic.Bool
	fail.Store(true)
	p := newTestPool(t, &Options{ConfigureClient: func(c *mcp.Client) error {
		calls.Add(1)
		if c == nil {
			t.Error("nil client")
		}
		if fail.Load() {
			return errors.New("no custom methods today")
		}
		return nil
	}})
	cfg := faultCfg(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := p.Get(ctx, cfg, GlobalPartition); !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "no custom methods today") {
		t.Fatalf("Get with failing hook: %v", err)
	}
	fail.Store(false)
	a := mustGet(t, p, cfg, GlobalPartition)
	b := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(a)
	defer p.Release(b)
	if got := calls.Load(); got != 2 {
		t.Fatalf("hook called %d times, want 2 (one failed start, one shared client)", got)
	}
	if mustCall(t, a, "echo", map[string]any{"text": "hi"}) != "hi" {
		t.Fatal("echo through a configured client failed")
	}
}

// TestConfigCopiedAtGet: changing the caller's maps and slices after Get changes nothing for the
// live client (and, under -race, does not race with it).
func TestConfigCopiedAtGet(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	cfg.Env = map[string]string{"A": "1"}
	cfg.Args = []string{"--stderr", "hello"}
	c := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(c)
	cfg.Env["A"] = "2"
	cfg.Args[1] = "changed"
	st := p.Stats()
	if len(st.Servers) != 1 {
		t.Fatalf("servers = %+v", st.Servers)
	}
	p.mu.Lock()
	var cl *client
	for _, x := range p.clients {
		cl = x
	}
	p.mu.Unlock()
	if cl.cfg.Env["A"] != "1" || cl.cfg.Args[1] != "hello" {
		t.Fatalf("live config changed with the caller's: env %v args %v", cl.cfg.Env, cl.cfg.Args)
	}
}
