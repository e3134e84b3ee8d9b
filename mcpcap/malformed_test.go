package mcpcap

import (
	"context"
	"testing"

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
	if _, err := c.GetCommand(ctx, "nulls:missing", nil); err == nil {
		t.Fatal("GetCommand(missing): no error")
	}
	skills, err := c.ListSkills(ctx)
	if err != nil || len(skills) != 1 {
		t.Fatalf("ListSkills = %+v, %v", skills, err)
	}
}
