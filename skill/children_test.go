package skill

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// fakeCap is an in-memory child capability: a fixed tool list, an echoing CallTool, and a
// count of Close calls.
type fakeCap struct {
	ext.Notifier
	name     string
	tools    []string
	toolsErr error
	closes   atomic.Int32
	mu       sync.Mutex
	calls    []string
}

func (f *fakeCap) Name() string { return f.name }
func (f *fakeCap) Tools(context.Context) ([]ext.ToolEntry, error) {
	if f.toolsErr != nil {
		return nil, f.toolsErr
	}
	var out []ext.ToolEntry
	for _, t := range f.tools {
		out = append(out, ext.ToolEntry{Name: t, Description: f.name + " " + t})
	}
	return out, nil
}
func (f *fakeCap) CallTool(_ context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, call.Name)
	f.mu.Unlock()
	return ext.TextResult(f.name + ":" + call.Name + ":" + string(call.Arguments)), nil
}
func (f *fakeCap) Instructions(context.Context) (ext.Instructions, error) {
	return ext.Instructions{}, nil
}
func (f *fakeCap) Close(context.Context) error { f.closes.Add(1); return nil }

var _ ext.ToolProvider = (*fakeCap)(nil)

func TestChildren(t *testing.T) {
	root := t.TempDir()
	write(t, root, "kid/SKILL.md", skillMD("name: kid\ndescription: Has servers.\nallowed-tools: echo search_* mcp__broken__x\n"+
		"mcp-servers:\n  good:\n    command: good-server\n    args: [--flag, 2]\n    env: {A: 1}\n  bad:\n    command: bad-server\n  broken:\n    url: http://127.0.0.1:1/mcp\n  invalid:\n    type: carrier-pigeon\n", "Body"))
	write(t, root, "open/SKILL.md", skillMD("name: open\ndescription: Unrestricted.\n", "Body"))
	write(t, root, "open/mcp.json", `{"mcpServers": {"files": {"command": "files-server", "cwd": "sub"}}}`)
	write(t, root, "none/SKILL.md", skillMD("name: none\ndescription: No tools allowed.\nallowed-tools: \"\"\nmcp-servers:\n  quiet:\n    command: q\n", "Body"))
	write(t, root, "badjson/SKILL.md", skillMD("name: badjson\ndescription: Broken mcp.json.\n", "Body"))
	write(t, root, "badjson/mcp.json", "{\n  \"mcpServers\": {,\n}")

	var mu sync.Mutex
	made := map[string]*fakeCap{}
	var decls []ServerDecl
	factory := func(_ context.Context, skill string, d ServerDecl) (ext.Capability, error) {
		mu.Lock()
		defer mu.Unlock()
		decls = append(decls, d)
		if d.Name == "bad" {
			return nil, errors.New("refused")
		}
		f := &fakeCap{name: d.Name, tools: []string{"echo", "search_docs", "secret"}}
		if d.Name == "broken" {
			f.toolsErr = errors.New("connection refused")
		}
		made[skill+"/"+d.Name] = f
		return f, nil
	}
	m := newTestManager(t, &Options{Roots: []string{root}, Children: factory})
	ctx := context.Background()

	// Declarations are parsed at discovery; invalid ones are diagnostics.
	kid := m.Skill("kid")
	var names []string
	for _, d := range kid.Servers {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"bad", "broken", "good"}) {
		t.Errorf("kid servers = %q", names)
	}
	good := kid.Servers[2]
	if good.Type != "stdio" || good.Command != "good-server" || !slices.Equal(good.Args, []string{"--flag", "2"}) || good.Env["A"] != "1" || good.Cwd != filepath.Join(root, "kid") || good.Line != 5 {
		t.Errorf("good decl = %+v", good)
	}
	if kid.Servers[1].Type != "streamable-http" {
		t.Errorf("broken decl type = %q", kid.Servers[1].Type)
	}
	open := m.Skill("open")
	if len(open.Servers) != 1 || open.Servers[0].Cwd != filepath.Join(root, "open", "sub") || open.Servers[0].Source != filepath.Join(root, "open", "mcp.json") {
		t.Errorf("open servers = %+v", open.Servers)
	}
	wantDiag := func(path, msg string) {
		t.Helper()
		for _, d := range m.Diagnostics() {
			if d.Path == path && strings.Contains(d.Message, msg) {
				return
			}
		}
		t.Errorf("no diagnostic for %s containing %q in %v", path, msg, m.Diagnostics())
	}
	wantDiag(filepath.Join(root, "kid", "SKILL.md"), `MCP server "invalid": unknown type "carrier-pigeon"`)
	wantDiag(filepath.Join(root, "badjson", "mcp.json"), "mcp.json is not valid JSON")

	// Nothing is created before the tools are needed.
	if len(made) != 0 {
		t.Fatalf("children created before use: %v", made)
	}
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range tools {
		got = append(got, tl.Name)
	}
	want := []string{"load_skill", "kid__echo", "kid__search_docs", "open__echo", "open__search_docs", "open__secret"}
	if !slices.Equal(got, want) {
		t.Errorf("tools = %q, want %q", got, want)
	}
	wantDiag(filepath.Join(root, "kid", "SKILL.md"), `MCP server "bad": refused`)

	res, err := m.CallTool(ctx, &ext.ToolCall{Name: "kid__echo", Arguments: json.RawMessage(`{"x":1}`)})
	if err != nil || res.Content[0].Text != `good:echo:{"x":1}` {
		t.Errorf("CallTool(kid__echo) = %v, %v", res, err)
	}
	if _, err := m.CallTool(ctx, &ext.ToolCall{Name: "kid__secret", Arguments: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Errorf("CallTool(kid__secret) = %v, want not found (not in allowed-tools)", err)
	}
	if _, err := m.CallTool(ctx, &ext.ToolCall{Name: "none__echo", Arguments: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Errorf("CallTool(none__echo) = %v, want not found (allowed-tools empty)", err)
	}
	kids := m.Children()
	if len(kids) != 4 { // kid: good, broken; none: quiet; open: files
		t.Errorf("Children() = %d capabilities, want 4", len(kids))
	}

	// A child's tools_changed becomes the manager's.
	var events []ext.ChangeEvent
	var emu sync.Mutex
	stop := m.Observe(func(ev ext.ChangeEvent) { emu.Lock(); events = append(events, ev); emu.Unlock() })
	made["kid/good"].Emit(ext.ChangeEvent{Capability: "good", Kind: ext.ToolsChanged})
	made["kid/good"].Emit(ext.ChangeEvent{Capability: "good", Kind: ext.ResourcesChanged})
	stop()
	emu.Lock()
	if len(events) != 1 || events[0] != (ext.ChangeEvent{Capability: "skills", Kind: ext.ToolsChanged}) {
		t.Errorf("events = %v", events)
	}
	emu.Unlock()

	// Close closes every child once, and twice is harmless.
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	m.Close(ctx)
	for k, f := range made {
		if n := f.closes.Load(); n != 1 {
			t.Errorf("child %s closed %d times", k, n)
		}
	}
}

// TestChildrenNilFactory keeps the declarations and offers no child tools.
func TestChildrenNilFactory(t *testing.T) {
	root := t.TempDir()
	write(t, root, "kid/SKILL.md", skillMD("name: kid\ndescription: d\nmcp-servers:\n  s:\n    command: x\n", "Body"))
	m := newTestManager(t, &Options{Roots: []string{root}})
	tools, _ := m.Tools(context.Background())
	if len(tools) != 1 || len(m.Children()) != 0 || len(m.Skill("kid").Servers) != 1 {
		t.Errorf("tools %v, children %v, servers %v", tools, m.Children(), m.Skill("kid").Servers)
	}
}
