package mcpcap

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentpool/agentpool/ext"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nullEntriesServer answers resources/list, resources/templates/list and prompts/list with a
// null entry among valid ones, as a buggy or hostile server may.
func nullEntriesServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "nulls", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "resources/list":
				return &mcp.ListResourcesResult{Resources: []*mcp.Resource{nil, {URI: "test://a", Name: "a"}, {URI: "skill://s/SKILL.md", Name: "s"}}}, nil
			case "resources/templates/list":
				return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{nil, {URITemplate: "test://t/{x}", Name: "t"}}}, nil
			case "prompts/list":
				return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{nil, {Name: "p"}}}, nil
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// A server that lists null resources, templates or prompts must not crash the host: the null
// entries are skipped and the valid ones served.
func TestNullListEntriesSkipped(t *testing.T) {
	ctx := context.Background()
	c, _ := inMemCap(t, nullEntriesServer(t), Config{Name: "nulls"})

	res, err := c.ListResources(ctx)
	if err != nil || len(res) != 2 || res[0].URI != "test://a" {
		t.Fatalf("ListResources = %+v, %v; want test://a and the skill", res, err)
	}
	tpl, err := c.ListResourceTemplates(ctx)
	if err != nil || len(tpl) != 1 || tpl[0].URITemplate != "test://t/{x}" {
		t.Fatalf("ListResourceTemplates = %+v, %v", tpl, err)
	}
	if ok, err := c.ResourceExists(ctx, "test://t/1"); !ok || err != nil {
		t.Fatalf("ResourceExists(test://t/1) = %v, %v", ok, err)
	}
	cmds, err := c.ListCommands(ctx)
	if err != nil || len(cmds) != 1 || cmds[0].Name != "nulls:p" {
		t.Fatalf("ListCommands = %+v, %v", cmds, err)
	}
	if _, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "nulls:missing", Args: nil}); err == nil {
		t.Fatal("GetCommand(missing): no error")
	}
	skills, err := c.ListSkills(ctx)
	if err != nil || len(skills) != 1 {
		t.Fatalf("ListSkills = %+v, %v", skills, err)
	}
}

// endlessPagesServer answers every listing with one entry and a next cursor, forever.
func endlessPagesServer(t *testing.T, cursor func(int) string) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "endless", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	var mu sync.Mutex
	n := 0
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			mu.Lock()
			n++
			c := cursor(n)
			mu.Unlock()
			switch method {
			case "tools/list":
				return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "t", InputSchema: map[string]any{"type": "object"}}}, NextCursor: c}, nil
			case "resources/list":
				return &mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: "test://a", Name: "a"}}, NextCursor: c}, nil
			case "resources/templates/list":
				return &mcp.ListResourceTemplatesResult{NextCursor: c}, nil
			case "prompts/list":
				return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: "p"}}, NextCursor: c}, nil
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// A server that never stops paginating (the same cursor again, or new cursors forever) must
// get a clear error, not an endless loop that grows the listing without bound.
func TestEndlessPaginationStops(t *testing.T) {
	for name, cursor := range map[string]func(int) string{
		"repeated": func(int) string { return "again" },
		"fresh":    func(n int) string { return fmt.Sprint("c", n) },
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := inMemCap(t, endlessPagesServer(t, cursor), Config{Name: "endless"})
			for what, list := range map[string]func(context.Context) error{
				"tools/list":     func(ctx context.Context) error { _, err := c.Tools(ctx); return err },
				"resources/list": func(ctx context.Context) error { _, err := c.ListResources(ctx); return err },
				"prompts/list":   func(ctx context.Context) error { _, err := c.ListCommands(ctx); return err },
			} {
				// A thousand pages take a while under -race on a loaded machine; an endless loop
				// never ends, so only a deadline far beyond the normal time tells them apart.
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				err := list(ctx)
				cancel()
				if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), what) {
					t.Errorf("%s: err = %v; want an error naming %s, before the deadline", what, err, what)
				}
			}
		})
	}
}
