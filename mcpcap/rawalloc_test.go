package mcpcap

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// maxRawCallAllocs bounds the allocations of one call passed through to a pooled stdio
// server, its answer read included (the connection's reader counts).
const maxRawCallAllocs = 1

// A call passed through to a stdio server costs a bounded number of allocations on this side.
func TestCallToolRawAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ctx := context.Background()
	p := connpool.New(&connpool.Options{IdleTimeout: -1})
	defer p.Close(ctx)
	c, err := New(Config{Name: "fault", Server: connpool.ServerConfig{Server: decl.Server{Command: testserver.Build(t)}}}, WithPool(p, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	call := &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"ping"}`)}
	do := func() {
		if _, err := c.CallToolRaw(ctx, call); err != nil {
			t.Fatal(err)
		}
	}
	do()
	if n := testing.AllocsPerRun(200, do); n > maxRawCallAllocs {
		t.Errorf("%v allocations per call, want at most %d", n, maxRawCallAllocs)
	}
}
