package mcpcap

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// TestHandOverDrains: after HandOver a call on the old Cap is made on the new one (its own
// process), while a call in flight on the old one finishes there; Drain returns once it has.
func TestHandOverDrains(t *testing.T) {
	bin := testserver.Build(t)
	p := newPool(t)
	old := newPoolCap(t, p, "", Config{Name: "v", Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Env: map[string]string{"GEN": "0"}}}})
	next := newPoolCap(t, p, "", Config{Name: "v", Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Env: map[string]string{"GEN": "1"}}}})
	oldPid := callText(t, old, "pid", `{}`)

	inFlight := make(chan error, 1)
	go func() {
		res, err := old.CallTool(context.Background(), &ext.ToolCall{Name: "sleep", Arguments: json.RawMessage(`{"ms": 2000}`)})
		if err == nil && res.IsError {
			err = context.Canceled // any error: the result says it failed
		}
		inFlight <- err
	}()
	testwait.For(t, "the call to be in flight", func() bool {
		old.mu.Lock()
		defer old.mu.Unlock()
		return old.calls.inFlight == 1
	})
	old.HandOver(next)
	if pid := callText(t, old, "pid", `{}`); pid == oldPid {
		t.Fatalf("a call after HandOver was answered by the old process %s", pid)
	}
	old.mu.Lock()
	n := old.calls.inFlight
	old.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := old.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	old.mu.Lock()
	after := old.calls.inFlight
	old.mu.Unlock()
	if n != 1 || after != 0 {
		t.Fatalf("calls in flight on the old Cap: %d before Drain, %d after, want 1 and 0", n, after)
	}
	if err := <-inFlight; err != nil {
		t.Fatalf("the call in flight at HandOver: %v", err)
	}
}
