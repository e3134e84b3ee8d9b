package mcpcap

import (
	"context"
	"strconv"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// A server that dies while nothing is asking emits tools_changed: a cached view (the gateway's
// sessions, an agent's next step) must ask again — reconnecting, or finding the server
// degraded — rather than keep offering a dead server's tools until someone calls one.
func TestDeathEmitsToolsChanged(t *testing.T) {
	bin := testserver.Build(t)
	c := newPoolCap(t, newPool(t), "", Config{Name: "srv", Server: connpool.ServerConfig{Server: decl.Server{Command: bin}}})
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	defer c.Observe(rec.add)()
	pid, err := strconv.Atoi(callText(t, c, "pid", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "tools_changed after the server died", func() bool { return rec.count(ext.ToolsChanged) >= 1 })
}
