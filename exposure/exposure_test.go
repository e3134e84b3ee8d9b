package exposure_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// server is an in-process capability listing tools by name and description.
type server struct {
	name  string
	tools map[string]string
}

func (s *server) Name() string                { return s.name }
func (s *server) Close(context.Context) error { return nil }
func (s *server) Tools(context.Context) ([]ext.ToolEntry, error) {
	var out []ext.ToolEntry
	for n, d := range s.tools {
		out = append(out, ext.ToolEntry{Name: ext.ToolName(s.name, n), Description: d, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return out, nil
}
func (s *server) CallTool(_ context.Context, c *ext.ToolCall) (*ext.ToolResult, error) {
	return ext.TextResult(c.Name + " " + string(c.Arguments)), nil
}

// compile returns the view of servers registered at the pool.
func compile(t *testing.T, servers ...*server) *view.View {
	t.Helper()
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { reg.Close(context.Background()) })
	for _, s := range servers {
		if err := reg.Register(s, ext.LevelPool, ext.Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := view.Compile(context.Background(), reg, ext.Scope{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func names(tools []view.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

var weather = &server{name: "weather", tools: map[string]string{
	"forecast": "The weather forecast for a city.", "alerts": "Severe weather alerts of a region.", "radar": "Rain radar images.",
}}
var git = &server{name: "git", tools: map[string]string{
	"commit": "Record changes to the repository.", "log": "Show the commit history.", "diff": "Show changes between commits.",
}}

// auto is all within the threshold and search past either of its figures.
func TestAppliesThreshold(t *testing.T) {
	v := compile(t, weather, git)
	for _, c := range []struct {
		cfg  exposure.Config
		want exposure.Mode
	}{
		{exposure.Config{}, exposure.ModeAll},
		{exposure.Config{Mode: exposure.ModeSearch}, exposure.ModeSearch},
		{exposure.Config{Mode: exposure.ModeAuto}, exposure.ModeAll},
		{exposure.Config{Mode: exposure.ModeAuto, AutoTools: 6}, exposure.ModeAll},
		{exposure.Config{Mode: exposure.ModeAuto, AutoTools: 5}, exposure.ModeSearch},
		{exposure.Config{Mode: exposure.ModeAuto, AutoBytes: exposure.ListingBytes(v)}, exposure.ModeAll},
		{exposure.Config{Mode: exposure.ModeAuto, AutoBytes: exposure.ListingBytes(v) - 1}, exposure.ModeSearch},
	} {
		if got := c.cfg.Applies(v); got != c.want {
			t.Errorf("%+v applies %s, want %s", c.cfg, got, c.want)
		}
		if got := exposure.NewSession(c.cfg, nil, false).Mode(v); got != c.want {
			t.Errorf("session of %+v: mode %s, want %s", c.cfg, got, c.want)
		}
	}
}

// A search lists what it found; past MaxActive the least recently used tool goes, and a call
// (Lists, Unwrap) makes a tool the most recently used.
func TestActivationLRU(t *testing.T) {
	v := compile(t, weather, git)
	s := exposure.NewSession(exposure.Config{Mode: exposure.ModeSearch, MaxActive: 2, AlwaysOnServers: []string{"nothing"}}, nil, false)
	if got := names(s.Tools(v)); !slices.Equal(got, []string{exposure.SearchTool, exposure.CallTool}) {
		t.Fatalf("listed %v before a search", got)
	}
	find := func(q string) {
		t.Helper()
		f, changed := s.Search(v, exposure.SearchArgs{Query: q, Limit: 1})
		if len(f.Tools) != 1 || !changed || !f.Activated {
			t.Fatalf("search %q: %+v, changed %v", q, f, changed)
		}
	}
	find("weather forecast")
	find("commit history")
	if !s.Lists(v, "weather__forecast") { // a use
		t.Fatal("weather__forecast not listed")
	}
	find("rain radar")
	if got := s.Active(); !slices.Equal(got, []string{"weather__forecast", "weather__radar"}) {
		t.Errorf("active %v, want git__log deactivated", got)
	}
	if s.Lists(v, "git__log") {
		t.Error("a deactivated tool is still callable by name")
	}
	call, bad := s.Unwrap(v, &ext.ToolCall{Name: exposure.CallTool, Arguments: json.RawMessage(`{"name":"git__diff","arguments":{"a":1}}`)})
	if bad != nil || call.Name != "git__diff" || string(call.Arguments) != `{"a":1}` {
		t.Errorf("Unwrap = %+v, %+v", call, bad)
	}
	for _, args := range []string{`{}`, `{"name":"call_tool"}`, `[1]`} {
		if _, bad := s.Unwrap(v, &ext.ToolCall{Name: exposure.CallTool, Arguments: json.RawMessage(args)}); bad == nil || !bad.IsError {
			t.Errorf("Unwrap of call_tool %s: no error result", args)
		}
	}
	if res, _, ok := s.CallOwn(v, &ext.ToolCall{Name: exposure.SearchTool, Arguments: json.RawMessage(`{}`)}); !ok || !res.IsError || !strings.Contains(res.Content[0].Text, "query") {
		t.Errorf("search_tools without a query = %+v", res)
	}
}

// A fixed session finds but activates nothing; in all mode the view's tools are listed as
// they are and the two tools are not agentpool's.
func TestFixedAndAllMode(t *testing.T) {
	v := compile(t, weather, git)
	s := exposure.NewSession(exposure.Config{Mode: exposure.ModeSearch}, nil, true)
	if f, changed := s.Search(v, exposure.SearchArgs{Query: "forecast"}); len(f.Tools) == 0 || changed || f.Activated {
		t.Errorf("fixed session's search: %+v, changed %v", f, changed)
	}
	all := exposure.NewSession(exposure.Config{}, nil, false)
	if got := all.Tools(v); len(got) != len(v.Tools) {
		t.Errorf("all mode listed %v", names(got))
	}
	if _, _, ok := all.CallOwn(v, &ext.ToolCall{Name: exposure.SearchTool}); ok {
		t.Error("all mode answered search_tools itself")
	}
}

// Sessions that see the same tools share one index; a server's changed tools make a new one
// in which only that server's docs differ.
func TestCatalogSharesIndexes(t *testing.T) {
	cat := exposure.NewCatalog()
	v1, v2 := compile(t, weather, git), compile(t, weather, git)
	if cat.Index(v1) != cat.Index(v2) {
		t.Error("two views of the same tools got two indexes")
	}
	changed := &server{name: "git", tools: map[string]string{"commit": "Record changes to the repository.", "blame": "Who changed each line."}}
	v3 := compile(t, weather, changed)
	ix3 := cat.Index(v3)
	if ix3 == cat.Index(v1) {
		t.Fatal("a changed server kept the old index")
	}
	s := exposure.NewSession(exposure.Config{Mode: exposure.ModeSearch}, cat, false)
	if f, _ := s.Search(v3, exposure.SearchArgs{Query: "who changed each line"}); len(f.Tools) == 0 || f.Tools[0].Name != "git__blame" {
		t.Errorf("search of the changed server: %+v", f.Tools)
	}
	if f, _ := s.Search(v3, exposure.SearchArgs{Query: "commit history"}); slices.ContainsFunc(f.Tools, func(m exposure.Match) bool { return m.Name == "git__log" }) {
		t.Errorf("a removed tool was found: %+v", f.Tools)
	}
}

// The report's text names only what is set: no empty list of always-on servers, and the
// patterns "none" when the config lists none.
func TestReportTextNamesWhatIsSet(t *testing.T) {
	v := compile(t, weather)
	for _, c := range []struct {
		cfg  exposure.Config
		want string
	}{
		{exposure.Config{Mode: exposure.ModeSearch}, "mode: search\napplies: search\nalways on: none (patterns load_skill)\nmax active: 32\n"},
		{exposure.Config{Mode: exposure.ModeSearch, AlwaysOn: []string{}, AlwaysOnServers: []string{"weather"}},
			"mode: search\napplies: search\nalways on: weather__alerts, weather__forecast, weather__radar (patterns none; servers weather)\nmax active: 32\n"},
	} {
		var b strings.Builder
		if err := exposure.NewReport(c.cfg, v).WriteText(&b); err != nil || b.String() != c.want {
			t.Errorf("%+v: text %q (%v), want %q", c.cfg, b.String(), err, c.want)
		}
	}
}
