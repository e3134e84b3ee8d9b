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

// unprefixed lists its tools under their own names (a server declared with prefix: "").
type unprefixed struct{ server }

func (s *unprefixed) Tools(context.Context) ([]ext.ToolEntry, error) {
	var out []ext.ToolEntry
	for n, d := range s.tools {
		out = append(out, ext.ToolEntry{Name: n, Description: d, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return out, nil
}

// An upstream tool named like one of search mode's own tools is hidden in search mode; the
// report names it, so compile says why it is missing, and says nothing in all mode.
func TestReportNamesShadowedTools(t *testing.T) {
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { reg.Close(context.Background()) })
	if err := reg.Register(&unprefixed{server{name: "up", tools: map[string]string{"call_tool": "Calls a phone number.", "dial": "Dials."}}}, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	v, err := view.Compile(context.Background(), reg, ext.Scope{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := exposure.NewReport(exposure.Config{Mode: exposure.ModeSearch}, v)
	if !slices.Equal(r.Shadowed, []string{"call_tool"}) {
		t.Errorf("search mode: shadowed %v, want [call_tool]", r.Shadowed)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil || !strings.Contains(b.String(), "call_tool") || !strings.Contains(b.String(), "hidden") {
		t.Errorf("text does not name the hidden tool:\n%s", b.String())
	}
	if r := exposure.NewReport(exposure.Config{}, v); len(r.Shadowed) != 0 {
		t.Errorf("all mode: shadowed %v, want none", r.Shadowed)
	}
}

// A search that finds an always-on tool does not spend an activation on it: it is listed
// anyway, and activating it would push out a tool the session found.
func TestAlwaysOnTakesNoActiveSlot(t *testing.T) {
	v := compile(t, weather, git)
	s := exposure.NewSession(exposure.Config{Mode: exposure.ModeSearch, MaxActive: 1, AlwaysOn: []string{"weather__forecast"}}, nil, false)
	if f, _ := s.Search(v, exposure.SearchArgs{Query: "commit history", Limit: 1}); len(f.Tools) != 1 {
		t.Fatalf("search: %+v", f)
	}
	s.Search(v, exposure.SearchArgs{Query: "weather forecast", Limit: 1})
	if got := s.Active(); !slices.Equal(got, []string{"git__log"}) {
		t.Errorf("active %v, want [git__log] kept: the always-on forecast needs no slot", got)
	}
}
