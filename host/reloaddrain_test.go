package host

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
