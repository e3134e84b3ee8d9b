package gateway_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sortedTools returns the names of the tools a client lists.
func sortedTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// search calls the search tool and returns the names of the tools it found.
func search(t *testing.T, cs *mcp.ClientSession, query string, limit int) []string {
	t.Helper()
	var f exposure.Found
	if err := json.Unmarshal([]byte(call(t, cs, exposure.SearchTool, map[string]any{"query": query, "limit": limit})), &f); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range f.Tools {
		if len(m.InputSchema) == 0 {
			t.Errorf("match %s has no input schema", m.Name)
		}
		names = append(names, m.Name)
	}
	return names
}

// In search mode a session lists load_skill and the search and call tools only; a search
// finds an upstream tool and activates it (tools/list_changed), which is then called by its
// name, and the call tool reaches any tool of the view.
func TestSearchModeActivates(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Tools = exposure.Config{Mode: exposure.ModeSearch} })
	cs, n := connect(t, f.url+"/mcp", nil)
	if got, want := sortedTools(t, cs), []string{"call_tool", "load_skill", "search_tools"}; !slices.Equal(got, want) {
		t.Fatalf("tools/list = %v, want %v", got, want)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__pid"}); err == nil {
		t.Error("a tool not activated was called by its name")
	}
	found := search(t, cs, "the server's process id", 1)
	if !slices.Equal(found, []string{"fault__pid"}) {
		t.Fatalf("search found %v, want fault__pid", found)
	}
	testwait.For(t, "tools/list_changed", func() bool { return n.tools.Load() >= 1 })
	if got := sortedTools(t, cs); !slices.Contains(got, "fault__pid") || len(got) != 4 {
		t.Fatalf("tools/list after the search = %v", got)
	}
	if call(t, cs, "fault__pid", nil) == "" {
		t.Error("fault__pid returned nothing")
	}
	if got := call(t, cs, exposure.CallTool, map[string]any{"name": "fault__echo", "arguments": map[string]any{"text": "hi"}}); got != "hi" {
		t.Errorf("call_tool fault__echo = %q, want hi", got)
	}
}

// Past max_active the least recently used activated tool is deactivated; calling a tool
// counts as using it.
func TestSearchModeLRU(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Tools = exposure.Config{Mode: exposure.ModeSearch, MaxActive: 2} })
	cs, _ := connect(t, f.url+"/mcp", nil)
	search(t, cs, "the server's process id", 1)    // pid
	search(t, cs, "returns its text unchanged", 1) // echo
	call(t, cs, "fault__pid", nil)                 // pid is now the most recently used
	if got := search(t, cs, "stored state", 1); len(got) != 1 {
		t.Fatalf("search found %v", got)
	}
	got := sortedTools(t, cs)
	if !slices.Contains(got, "fault__pid") || slices.Contains(got, "fault__echo") || len(got) != 5 {
		t.Fatalf("tools/list = %v, want fault__pid and the state tool, not fault__echo", got)
	}
}

// auto lists every tool while the view is within the threshold and switches to search once
// a server's new tool takes it past, telling the client.
func TestAutoModeSwitches(t *testing.T) {
	f := newFixture(t, nil)
	cs0, _ := connect(t, f.url+"/mcp", nil)
	all := sortedTools(t, cs0)
	f2 := newFixture(t, func(o *gateway.Options) {
		o.Tools = exposure.Config{Mode: exposure.ModeAuto, AutoTools: len(all)}
	})
	cs, n := connect(t, f2.url+"/mcp", nil)
	if got := sortedTools(t, cs); !slices.Equal(got, all) {
		t.Fatalf("auto within the threshold lists %v, want every tool %v", got, all)
	}
	call(t, cs, "fault__add_tool", map[string]any{"name": "extra"})
	testwait.For(t, "tools/list_changed", func() bool { return n.tools.Load() >= 1 })
	testwait.For(t, "the search listing", func() bool {
		return slices.Equal(sortedTools(t, cs), []string{"call_tool", "load_skill", "search_tools"})
	})
}

// A tool the view keeps out (deny_tools, hidden text blocked) is neither found nor called
// through the call tool.
func TestSearchModeBlocked(t *testing.T) {
	bin := testserver.Build(t)
	_, srv, _ := serveHost(t, "mcp_servers:\n  fault: {command: "+bin+", args: [--hidden-text-tool, whisper], deny_tools: [crash], hidden_text: block}\n",
		host.Options{}, func(o *gateway.Options) { o.Tools = exposure.Config{Mode: exposure.ModeSearch} })
	cs, _ := connect(t, srv.URL+"/mcp", nil)
	for _, q := range []string{"exits the process at once", "echoes the text"} {
		for _, name := range search(t, cs, q, 20) {
			if name == "fault__crash" || name == "fault__whisper" {
				t.Errorf("search %q found blocked tool %s", q, name)
			}
		}
	}
	for _, name := range []string{"fault__crash", "fault__whisper"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: exposure.CallTool, Arguments: map[string]any{"name": name}})
		if err == nil && !res.IsError {
			t.Errorf("call_tool reached blocked tool %s: %+v", name, res)
		}
	}
}

// A tool of the view the session does not list (never found, or deactivated past max_active)
// called by its name is refused with the way to it: the call tool, or a search to list it.
func TestSearchModeNotListedSaysHow(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Tools = exposure.Config{Mode: exposure.ModeSearch, MaxActive: 1} })
	cs, _ := connect(t, f.url+"/mcp", nil)
	search(t, cs, "the server's process id", 1)
	search(t, cs, "returns its text unchanged", 1) // fault__pid is deactivated
	for _, name := range []string{"fault__pid", "fault__state_get"} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), exposure.CallTool) || !strings.Contains(err.Error(), exposure.SearchTool) {
			t.Errorf("call %s by its name: %v, want an error naming it, %s and %s", name, err, exposure.CallTool, exposure.SearchTool)
		}
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__nope"}); err == nil || strings.Contains(err.Error(), exposure.CallTool) {
		t.Errorf("call of a tool the view lacks: %v, want unknown tool", err)
	}
}
