package mcpcap

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// TestLazyListingsStartNothing: a Lazy Cap over a real stdio server (the fault server with
// skills, started through sh so that every start leaves a mark) lists its static tools and no
// resources, templates, prompts or skills, and answers the routing probes (ResourceExists,
// SkillExists of the server's own URIs) false, without starting the process. The first call
// starts it; the Cap then says its resources, prompts, commands and skills changed, and lists
// them from the server.
func TestLazyListingsStartNothing(t *testing.T) {
	ctx := context.Background()
	bin := testserver.Build(t)
	marks := filepath.Join(t.TempDir(), "starts")
	server := connpool.ServerConfig{Command: "/bin/sh", Args: []string{"-c", `echo start >> "$0"; exec "$1" --skills`, marks, bin}}
	static := []ext.ToolEntry{{Name: "echo", Description: "static echo", Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}}}
	c := newPoolCap(t, newPool(t), "", Config{Name: "fault", Server: server, Lazy: true, Tools: static})
	var rec recorder
	defer c.Observe(rec.add)()
	started := func() bool {
		_, err := os.Stat(marks)
		return err == nil
	}

	if tools, err := c.Tools(ctx); err != nil || len(tools) != 1 {
		t.Fatalf("tools = %+v, %v; want the static echo", tools, err)
	}
	if rs, err := c.ListResources(ctx); err != nil || len(rs) != 0 {
		t.Errorf("resources = %+v, %v; want none before the first call", rs, err)
	}
	if ts, err := c.ListResourceTemplates(ctx); err != nil || len(ts) != 0 {
		t.Errorf("templates = %+v, %v; want none before the first call", ts, err)
	}
	if cs, err := c.ListCommands(ctx); err != nil || len(cs) != 0 {
		t.Errorf("prompts = %+v, %v; want none before the first call", cs, err)
	}
	if ss, err := c.ListSkills(ctx); err != nil || len(ss) != 0 {
		t.Errorf("skills = %+v, %v; want none before the first call", ss, err)
	}
	if ok, err := c.ResourceExists(ctx, "test://static/hello"); err != nil || ok {
		t.Errorf("ResourceExists = %v, %v; want false before the first call", ok, err)
	}
	if ok, err := c.SkillExists(ctx, "skill://pdf/SKILL.md"); err != nil || ok {
		t.Errorf("SkillExists = %v, %v; want false before the first call", ok, err)
	}
	if started() {
		t.Fatal("listing a lazy server started its process")
	}
	if st := c.Status(); st.State != StateIdle {
		t.Fatalf("listing a lazy server connected it: %+v", st)
	}

	if res, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil || res.Content[0].Text != "x" {
		t.Fatalf("first call: %+v, %v", res, err)
	}
	if !started() {
		t.Fatal("the first call did not start the server")
	}
	for _, kind := range []ext.ChangeKind{ext.ResourcesChanged, ext.PromptsChanged, ext.CommandsChanged, ext.SkillsChanged} {
		if rec.count(kind) == 0 {
			t.Errorf("no %s once the first call connected (a view listed nothing before)", kind)
		}
	}
	if rs, err := c.ListResources(ctx); err != nil || len(rs) == 0 {
		t.Errorf("resources after the first call = %+v, %v; want the server's", rs, err)
	}
	if cs, err := c.ListCommands(ctx); err != nil || len(cs) == 0 {
		t.Errorf("prompts after the first call = %+v, %v; want the server's", cs, err)
	}
	if ok, err := c.SkillExists(ctx, "skill://pdf/SKILL.md"); err != nil || !ok {
		t.Errorf("SkillExists after the first call = %v, %v; want true", ok, err)
	}
}

// TestLazyAddressedByNameConnects: a resource read addressed to a lazy server by name
// (mcp://<server>/<uri>) is a use of it, as a call is: it starts the server.
func TestLazyAddressedByNameConnects(t *testing.T) {
	ctx := context.Background()
	bin := testserver.Build(t)
	static := []ext.ToolEntry{{Name: "echo", Description: "static echo"}}
	c := newPoolCap(t, newPool(t), "", Config{Name: "fault", Server: connpool.ServerConfig{Command: bin}, Lazy: true, Tools: static})
	if ok, err := c.ResourceExists(ctx, "mcp://fault/test://static/hello"); err != nil || !ok {
		t.Fatalf("ResourceExists(mcp://fault/…) = %v, %v; want true", ok, err)
	}
	if got, err := c.ReadResource(ctx, "mcp://fault/test://static/hello"); err != nil || len(got) != 1 {
		t.Fatalf("read = %+v, %v", got, err)
	}
}
