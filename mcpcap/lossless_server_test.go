package mcpcap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv names the environment variable that turns the test binary into a test server
// (TestMain checks it): tests reach a go-sdk server over real stdio by re-executing themselves.
const serverEnv = "MCPCAP_TEST_SERVER"

// runTestServer serves the named test server on stdin/stdout and reports whether name was one.
func runTestServer(name string) bool {
	if name != "lossless" {
		return false
	}
	if err := losslessServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "lossless server:", err)
		os.Exit(1)
	}
	return true
}

// losslessStdio is the pool configuration of the lossless server over stdio: this test binary,
// re-executed.
func losslessStdio(t *testing.T) connpool.ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return connpool.ServerConfig{Name: "lossless", Server: decl.Server{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{serverEnv: "lossless"}}}
}

// The lossless server offers what the pinned server-everything does not: audio, icons on every
// listed kind, prompts with both roles and every content kind, progress with messages, a tool
// that echoes the _meta it received, and _meta or annotations on every item.
var (
	icon      = mcp.Icon{Source: "https://example.com/tool.png", MIMEType: "image/png", Sizes: []string{"48x48", "96x96"}, Theme: "dark"}
	dataIcon  = mcp.Icon{Source: "data:image/svg+xml;base64,PHN2Zy8+", MIMEType: "image/svg+xml", Sizes: []string{"any"}}
	annotated = &mcp.Annotations{Audience: []mcp.Role{"user", "assistant"}, Priority: 0.25, LastModified: "2025-01-12T15:00:58Z"}
)

func losslessServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lossless", Title: "Lossless", Version: "1", Icons: []mcp.Icon{icon}}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}},
	})
	object := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{
		Name: "kinds", Title: "Every kind", Description: "returns every content kind", InputSchema: object,
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "kinds", OpenWorldHint: ptr(false)},
		Icons:        []mcp.Icon{icon, dataIcon}, Meta: mcp.Meta{"tool": "meta"},
	}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Fail bool `json:"fail"`
		}
		_ = json.Unmarshal(r.Params.Arguments, &args)
		return &mcp.CallToolResult{
			Meta:              mcp.Meta{"trace": "server", "nested": map[string]any{"a": []any{1.0, "two", nil, true}}},
			StructuredContent: map[string]any{"n": 7.0, "list": []any{"x", 1.5}, "obj": map[string]any{"deep": nil}},
			IsError:           args.Fail,
			Content:           allContent(),
		}, nil
	})
	s.AddTool(&mcp.Tool{Name: "meta", Description: "returns the _meta it received as structured content", InputSchema: object, Icons: []mcp.Icon{dataIcon}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got := map[string]any(r.Params.Meta)
			if got == nil {
				got = map[string]any{}
			}
			return &mcp.CallToolResult{StructuredContent: got, Content: []mcp.Content{&mcp.TextContent{Text: "meta"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "progress", Description: "sends steps progress notifications with messages when given a token", InputSchema: object},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Steps int `json:"steps"`
			}
			_ = json.Unmarshal(r.Params.Arguments, &args)
			token := r.Params.GetProgressToken()
			if token != nil {
				for i := 1; i <= args.Steps; i++ {
					err := r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
						Progress: float64(i), Total: float64(args.Steps), Message: fmt.Sprintf("step %d of %d", i, args.Steps)})
					if err != nil {
						return nil, err
					}
				}
			}
			return &mcp.CallToolResult{StructuredContent: map[string]any{"token": token}, Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "structured", Description: "returns its argument value as structured content, and no content", InputSchema: object},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Value json.RawMessage `json:"value"`
			}
			_ = json.Unmarshal(r.Params.Arguments, &args)
			return &mcp.CallToolResult{StructuredContent: args.Value, Content: []mcp.Content{}}, nil
		})
	read := func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "x"}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "test://lossless/icon", Name: "icon", Title: "Icon resource", Description: "a resource with icons",
		MIMEType: "text/plain", Size: 1, Icons: []mcp.Icon{icon, dataIcon}, Annotations: annotated, Meta: mcp.Meta{"r": 1.0}}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://lossless/dyn/{id}", Name: "dyn", Title: "Dynamic",
		Description: "a template with icons", MIMEType: "text/plain", Icons: []mcp.Icon{dataIcon}, Annotations: annotated, Meta: mcp.Meta{"t": true}}, read)
	s.AddPrompt(&mcp.Prompt{Name: "roles", Title: "Roles", Description: "both roles, every content kind", Icons: []mcp.Icon{icon},
		Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			res := &mcp.GetPromptResult{Description: "about " + r.Params.Arguments["topic"], Meta: mcp.Meta{"prompt": "meta"}}
			for i, c := range allContent() {
				role := mcp.Role("user")
				if i%2 == 1 {
					role = "assistant"
				}
				res.Messages = append(res.Messages, &mcp.PromptMessage{Role: role, Content: c})
			}
			return res, nil
		})
	return s
}

// allContent is one item of every content kind, each with _meta or annotations (or both).
func allContent() []mcp.Content {
	return []mcp.Content{
		&mcp.TextContent{Text: "text", Meta: mcp.Meta{"c": 0.0}, Annotations: annotated},
		&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}, MIMEType: "image/png", Annotations: annotated},
		&mcp.AudioContent{Data: []byte{'R', 'I', 'F', 'F', 0, 1, 2}, MIMEType: "audio/wav", Meta: mcp.Meta{"seconds": 1.5}, Annotations: annotated},
		&mcp.ResourceLink{URI: "test://lossless/icon", Name: "icon", Title: "Icon resource", Description: "linked", MIMEType: "text/plain",
			Size: ptr(int64(0)), Icons: []mcp.Icon{icon}, Meta: mcp.Meta{"l": "m"}, Annotations: annotated},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://lossless/text", MIMEType: "text/markdown", Text: "# embedded", Meta: mcp.Meta{"e": "t"}},
			Meta: mcp.Meta{"outer": 1.0}, Annotations: annotated},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://lossless/blob", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 0xfe, 0xff}}},
	}
}
