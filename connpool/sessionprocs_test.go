package connpool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// MaxSessionProcesses caps the stdio processes of session partitions across all sessions: past
// it a session's Get fails at once (no wait), naming pool.max_session_processes, while the
// shared servers still start; a session's processes ended free their places.
func TestMaxSessionProcesses(t *testing.T) {
	p := newTestPool(t, &Options{MaxSessionProcesses: 2})
	cfg := faultCfg(t)
	a, b := mustGet(t, p, cfg, "s#1"), mustGet(t, p, cfg, "s#2")
	defer p.Release(a)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout)
	defer cancel()
	_, err := p.Get(ctx, cfg, "s#3")
	if !errors.Is(err, ErrPoolExhausted) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "max_session_processes") {
		t.Fatalf("a third session's process with MaxSessionProcesses 2: %v, want ErrPoolExhausted at once naming max_session_processes", err)
	}
	global := mustGet(t, p, cfg, GlobalPartition)
	p.Release(global)
	p.Release(b)
	if err := p.ClosePartition(ctx, "s#2"); err != nil {
		t.Fatal(err)
	}
	c := mustGet(t, p, cfg, "s#3")
	p.Release(c)
}
