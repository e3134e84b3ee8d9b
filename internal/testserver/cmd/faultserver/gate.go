package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type gateArg struct {
	Path string `json:"path" jsonschema:"the file whose existence opens the gate"`
	Key  string `json:"key,omitempty" jsonschema:"echoed back in the result"`
}

// addGateTools adds the tools whose end a test decides, not a clock:
//
//   - gate (read-only, idempotent): appends "gate <pid>" to the --log file, waits until the
//     file at path exists (or the call is cancelled: then "gate-cancelled <pid>"), and
//     returns "gate-<key>". A test kills the server while it waits and creates the file for
//     the retried call, or holds two calls in it at once to prove they run concurrently.
func addGateTools(s *mcp.Server) {
	pid := os.Getpid()
	mcp.AddTool(s, &mcp.Tool{Name: "gate", Description: "Read-only and idempotent: waits until the file at path exists, then returns \"gate-<key>\"; appends \"gate <pid>\" to the --log file when it starts waiting.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in gateArg) (*mcp.CallToolResult, any, error) {
			appendLog(fmt.Sprintf("gate %d", pid))
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				if _, err := os.Stat(in.Path); err == nil {
					return text("gate-" + in.Key), nil, nil
				}
				select {
				case <-ctx.Done():
					appendLog(fmt.Sprintf("gate-cancelled %d", pid))
					return nil, nil, ctx.Err()
				case <-tick.C:
				}
			}
		})
}
