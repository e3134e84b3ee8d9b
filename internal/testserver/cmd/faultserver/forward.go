package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools of this file ask the server's client for something, or send it notifications,
// during a call: what a gateway must forward to the client whose call caused it.

type levelArg struct {
	Level string `json:"level" jsonschema:"the MCP log level"`
	Text  string `json:"text" jsonschema:"the message"`
}

type uriArg struct {
	URI string `json:"uri" jsonschema:"a resource URI"`
}

func subscribed(_ context.Context, req *mcp.SubscribeRequest) error {
	appendLog("subscribe " + req.Params.URI)
	return nil
}

func unsubscribed(_ context.Context, req *mcp.UnsubscribeRequest) error {
	appendLog("unsubscribe " + req.Params.URI)
	return nil
}

type stepsArg struct {
	Steps   int    `json:"steps" jsonschema:"how many progress notifications to send"`
	WaitFor string `json:"wait_for,omitempty" jsonschema:"after the notifications, wait until this file exists before answering"`
}

// failed is a tool error result carrying the error of a request to the client.
func failed(what string, err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: what + ": " + err.Error()}}}
}

func addForwardingTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Asks the client to sample a reply to text (sampling/createMessage) and returns the reply's text; a tool error with the client's error if it fails."},
		func(ctx context.Context, req *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}}})
			if err != nil {
				return failed("sampling", err), nil, nil
			}
			if tc, ok := res.Content.(*mcp.TextContent); ok {
				return text(tc.Text), nil, nil
			}
			return text(fmt.Sprintf("%T", res.Content)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Asks the client for its roots (roots/list) and returns their URIs, one a line."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArg) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return failed("roots", err), nil, nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, "\n")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Logs text at level (notifications/message, logger \"faultserver\") and returns \"logged\"."},
		func(ctx context.Context, req *mcp.CallToolRequest, in levelArg) (*mcp.CallToolResult, any, error) {
			err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(in.Level), Logger: "faultserver", Data: in.Text})
			if err != nil {
				return failed("log", err), nil, nil
			}
			return text("logged"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "Sends notifications/resources/updated for uri to the sessions subscribed to it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in uriArg) (*mcp.CallToolResult, any, error) {
			if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: in.URI}); err != nil {
				return failed("touch", err), nil, nil
			}
			return text("touched"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Sends steps progress notifications (1..steps of steps) on the caller's progress token, waits for the file wait_for to exist if given, then returns \"done\"."},
		func(ctx context.Context, req *mcp.CallToolRequest, in stepsArg) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps && tok != nil; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
					Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i)})
				if err != nil {
					return failed("progress", err), nil, nil
				}
			}
			for in.WaitFor != "" {
				if _, err := os.Stat(in.WaitFor); err == nil {
					break
				}
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-time.After(10 * time.Millisecond):
				}
			}
			return text("done"), nil, nil
		})
}
