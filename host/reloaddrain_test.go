package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/mcpcap"
)

// poolServer returns the pool-level capability of the configured server name.
func poolServer(t *testing.T, h *Host, name string) *mcpcap.Cap {
	t.Helper()
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if m, ok := c.(*mcpcap.Cap); ok && c.Name() == name {
			return m
		}
	}
	t.Fatalf("no pool-level server %q", name)
	return nil
}

// callPID calls the tool pid of the fault server c, under the name c lists it by.
func callPID(t *testing.T, c *mcpcap.Cap) string {
	t.Helper()
	ctx := context.Background()
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if strings.HasSuffix(tool.Name, "pid") {
			res, err := c.CallTool(ctx, &ext.ToolCall{Name: tool.Name, Arguments: json.RawMessage(`{}`)})
			if err != nil || res.IsError || len(res.Content) == 0 {
				t.Fatalf("%s: %+v, %v", tool.Name, res, err)
			}
			return res.Content[0].Text
		}
	}
	t.Fatalf("server %q lists no pid tool", c.Name())
	return ""
}

// A reload changing a server only where its pool fingerprint does not look (its prefix) starts
// the new instance's own process, and the old instance's drain, once ended, retires the old
// client only: the new one stays the pool's shared client for that declaration, so another
// lease of it gets the same process.
func TestReloadDrainKeepsTheNewClientShared(t *testing.T) {
	bin := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	h := buildHost(t, path, "mcp_servers:\n  fault: {command: "+bin+", prefix: a}\n", Options{})
	ctx := context.Background()
	oldPID := callPID(t, poolServer(t, h, "fault"))
	next, err := config.Parse(path, []byte("mcp_servers:\n  fault: {command: "+bin+", prefix: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(ctx, next); err != nil {
		t.Fatal(err)
	}
	nc := poolServer(t, h, "fault")
	newPID := callPID(t, nc)
	if newPID == oldPID {
		t.Fatalf("the changed server still runs on the old process %s", oldPID)
	}
	h.drains.Wait() // the old instance's drain has ended, and the old instance with it
	testwait.For(t, "the old process to end", func() bool { return !alive(t, oldPID) })
	lease, err := h.Pool.Get(ctx, nc.Config().Server, connpool.GlobalPartition)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Pool.Release(lease)
	var pids []int
	for _, s := range h.Pool.Stats().Servers {
		if s.Name == "fault" {
			pids = append(pids, s.PID)
		}
	}
	if len(pids) != 1 || strconv.Itoa(pids[0]) != newPID {
		t.Errorf("the pool's clients of fault after the drain: pids %v, want the new instance's %s alone", pids, newPID)
	}
}

// A replaced server whose process dies during its drain reconnects for the call in flight
// (an idempotent one is retried): the process it starts then, of the old declaration, ends
// with the drain, rather than idling in the pool beside the new one.
func TestReloadDrainEndsTheOldReconnect(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	logFile, gate := filepath.Join(dir, "log"), filepath.Join(dir, "gate")
	path := filepath.Join(dir, "agentpool.yaml")
	conf := func(v string) string {
		return "mcp_servers:\n  fault: {command: " + bin + ", args: [--log, " + logFile + "], env: {V: \"" + v + "\"}}\n"
	}
	h := buildHost(t, path, conf("1"), Options{})
	ctx := context.Background()
	old := poolServer(t, h, "fault")
	oldPID := callPID(t, old)
	done := make(chan error, 1)
	go func() {
		_, err := old.CallTool(ctx, &ext.ToolCall{Name: "fault__gate", Arguments: json.RawMessage(`{"path":` + strconv.Quote(gate) + `}`)})
		done <- err
	}()
	gatePIDs := func() []string {
		b, _ := os.ReadFile(logFile)
		var out []string
		for l := range strings.Lines(string(b)) {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "gate" {
				out = append(out, f[1])
			}
		}
		return out
	}
	testwait.For(t, "the gate call to start", func() bool { return len(gatePIDs()) == 1 })
	next, err := config.Parse(path, []byte(conf("2")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(ctx, next); err != nil {
		t.Fatal(err)
	}
	newPID := callPID(t, poolServer(t, h, "fault"))
	pid, _ := strconv.Atoi(oldPID)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "the call to be retried on a new process", func() bool { return len(gatePIDs()) == 2 })
	again := gatePIDs()[1]
	if again == newPID || again == oldPID {
		t.Fatalf("the retried call ran on %s (old %s, new %s)", again, oldPID, newPID)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the call in flight across the reload: %v", err)
		}
	case <-time.After(testwait.Timeout):
		t.Fatal("the call in flight across the reload did not end")
	}
	h.drains.Wait()
	testwait.For(t, "the old declaration's second process to end", func() bool { return !alive(t, again) })
}
