package exposure

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/toolsearch"
	"github.com/agentpool/agentpool/view"
)

// The names of agentpool's own tools in search mode. In that mode they take the place of a
// view's tool of the same name, which is then unreachable.
const (
	SearchTool = "search_tools"
	CallTool   = "call_tool"
)

// DefaultLimit and MaxLimit bound the matches one search returns.
const (
	DefaultLimit = 5
	MaxLimit     = 20
)

// A Session is one session's (an MCP client's, an agent conversation's) exposure: the mode's
// settings and the tools it has activated. It is safe for concurrent use.
type Session struct {
	cfg Config
	cat *Catalog
	// Fixed, when set, makes searches activate nothing: for a session shared by clients that
	// cannot be told apart (a stateless server). The call tool still reaches every tool.
	fixed bool

	mu     sync.Mutex
	active []string // activated served names, least recently used first
	seen   *view.View
	ix     *toolsearch.Index // the index of seen
	modeOf *view.View        // the view mode was resolved for (auto)
	mode   Mode
}

// NewSession returns a session of cfg (defaults applied) that searches through cat; a nil
// cat gives the session a Catalog of its own. A fixed session activates nothing.
func NewSession(cfg Config, cat *Catalog, fixed bool) *Session {
	if cat == nil {
		cat = NewCatalog()
	}
	return &Session{cfg: cfg.WithDefaults(), cat: cat, fixed: fixed}
}

// Config returns the session's settings, defaults applied.
func (s *Session) Config() Config { return s.cfg }

// Mode returns the mode that applies to v: all or search.
func (s *Session) Mode(v *view.View) Mode {
	if s.cfg.Mode != ModeAuto {
		return s.cfg.Applies(v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modeOf != v {
		s.modeOf, s.mode = v, s.cfg.Applies(v)
	}
	return s.mode
}

// Lists reports whether the session lists the tool name of v, so that a client may call it
// by that name: in ModeSearch an always-on or activated tool. The call is counted as a use
// (Touch).
func (s *Session) Lists(v *view.View, name string) bool {
	if s.Mode(v) != ModeSearch {
		return true
	}
	t, ok := v.Tool(name)
	if !ok || name == SearchTool || name == CallTool {
		return false
	}
	if s.cfg.IsAlwaysOn(&t) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.Index(s.active, name)
	if i >= 0 {
		s.active = append(slices.Delete(s.active, i, i+1), name)
	}
	return i >= 0
}

// NotListed returns why the session refuses a call of the tool name of v by that name: in
// ModeSearch, for a tool of v that is neither always on nor activated, an error wrapping
// ext.ErrNotFound that names the call tool and the search tool. Nil for any other name (v
// has no such tool, or the session lists it; a listed tool is counted as used, as by Lists).
func (s *Session) NotListed(v *view.View, name string) error {
	if _, ok := v.Tool(name); !ok || name == SearchTool || name == CallTool || s.Lists(v, name) {
		return nil
	}
	return fmt.Errorf("tool %q: %w: not listed in this session (search mode): call it through %s with {name, arguments}, or find it with %s",
		name, ext.ErrNotFound, CallTool, SearchTool)
}

// Tools returns the tools the session lists for v: every tool of v in ModeAll; in ModeSearch
// the always-on and activated tools of v, in v's order, then the search and call tools.
func (s *Session) Tools(v *view.View) []view.Tool {
	if s.Mode(v) != ModeSearch {
		return v.Tools
	}
	s.mu.Lock()
	active := slices.Clone(s.active)
	s.mu.Unlock()
	var out []view.Tool
	for i := range v.Tools {
		t := &v.Tools[i]
		if t.Name == SearchTool || t.Name == CallTool {
			continue
		}
		if s.cfg.IsAlwaysOn(t) || slices.Contains(active, t.Name) {
			out = append(out, *t)
		}
	}
	return append(out, searchTool, callTool)
}

// Active returns the activated tools' names, least recently used first.
func (s *Session) Active() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.active)
}

// Touch marks name used: an activated tool called by its name becomes the most recently used.
func (s *Session) Touch(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.active, name); i >= 0 {
		s.active = append(slices.Delete(s.active, i, i+1), name)
	}
}

// activate makes names the most recently used activated tools, deactivating the least
// recently used past MaxActive, and reports whether the set changed.
func (s *Session) activate(names []string) bool {
	if s.fixed || len(names) == 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	before := slices.Clone(s.active)
	slices.Sort(before)
	for _, n := range names {
		if i := slices.Index(s.active, n); i >= 0 {
			s.active = slices.Delete(s.active, i, i+1)
		}
		s.active = append(s.active, n)
	}
	if over := len(s.active) - s.cfg.MaxActive; over > 0 {
		s.active = slices.Delete(s.active, 0, over)
	}
	after := slices.Clone(s.active)
	slices.Sort(after)
	return !slices.Equal(before, after)
}

// index returns the index of v, from the Catalog once per view.
func (s *Session) index(v *view.View) *toolsearch.Index {
	s.mu.Lock()
	if s.seen == v {
		defer s.mu.Unlock()
		return s.ix
	}
	s.mu.Unlock()
	ix := s.cat.Index(v)
	s.mu.Lock()
	s.seen, s.ix = v, ix
	s.mu.Unlock()
	return ix
}

// SearchArgs are the search tool's arguments.
type SearchArgs struct {
	Query  string `json:"query"`
	Server string `json:"server,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// Match is one tool a search found, as the search tool returns it.
type Match struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// SkillMatch is one skill a search found.
type SkillMatch struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Load says how to read it: with the load_skill tool.
	Load string `json:"load"`
}

// Found is what a search returns.
type Found struct {
	Tools  []Match      `json:"tools"`
	Skills []SkillMatch `json:"skills,omitempty"`
	// Activated reports that the tools found are now listed, callable by their names.
	Activated bool   `json:"activated"`
	Note      string `json:"note"`
}

// Search finds the tools and skills of v that best match a, and activates the tools found.
// It reports whether the session's listing changed.
func (s *Session) Search(v *view.View, a SearchArgs) (Found, bool) {
	limit := a.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit, s.cfg.MaxActive)
	opt := toolsearch.Options{Limit: limit}
	if a.Server != "" {
		opt.Servers = []string{a.Server}
	}
	f := Found{Tools: []Match{}}
	var names []string
	for _, h := range s.index(v).Search(a.Query, opt) {
		if h.Doc.Kind == toolsearch.KindSkill {
			f.Skills = append(f.Skills, SkillMatch{Name: h.Doc.Key, Description: h.Doc.Description, Load: fmt.Sprintf("call load_skill with name %q", h.Doc.Key)})
			continue
		}
		t, ok := v.Tool(h.Doc.Key)
		if !ok || t.Name == SearchTool || t.Name == CallTool {
			continue
		}
		f.Tools = append(f.Tools, Match{Name: t.Name, Server: t.Capability, Title: t.Entry.Title, Description: t.Entry.Description, InputSchema: t.Entry.InputSchema})
		if !s.cfg.IsAlwaysOn(&t) { // listed anyway: no activation slot
			names = append(names, t.Name)
		}
	}
	changed := s.activate(names)
	f.Activated = !s.fixed && len(names) > 0
	switch {
	case len(f.Tools) == 0 && len(f.Skills) == 0:
		f.Note = "Nothing matched; try other words, or no server filter."
	case f.Activated:
		f.Note = "These tools are now listed: call them by name, or through " + CallTool + " with {name, arguments}."
	default:
		f.Note = "Call these tools through " + CallTool + " with {name, arguments}."
	}
	return f, changed
}

// CallArgs are the call tool's arguments.
type CallArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Unwrap returns the call that call stands for: for the call tool in search mode, the named
// tool of the view with its arguments, call's _meta and progress sink; any other call as it
// is. The tool called is marked used (Touch). Arguments the call tool cannot read give an
// error result to answer with instead.
func (s *Session) Unwrap(v *view.View, call *ext.ToolCall) (*ext.ToolCall, *ext.ToolResult) {
	if call.Name != CallTool || s.Mode(v) != ModeSearch {
		s.Touch(call.Name)
		return call, nil
	}
	var a CallArgs
	if len(call.Arguments) > 0 {
		if err := json.Unmarshal(call.Arguments, &a); err != nil {
			return nil, errorResult("%s: arguments: %v", CallTool, err)
		}
	}
	if a.Name == "" {
		return nil, errorResult("%s: arguments: name is missing (a tool's name as %s returned it)", CallTool, SearchTool)
	}
	if a.Name == CallTool || a.Name == SearchTool {
		return nil, errorResult("%s: %s cannot be called through it", CallTool, a.Name)
	}
	s.Touch(a.Name)
	inner := *call
	inner.Name, inner.Arguments = a.Name, a.Arguments
	return &inner, nil
}

// CallOwn answers a call of the search tool in search mode, and reports whether the
// session's listing changed (tools activated) and true; any other call is not its own: false.
func (s *Session) CallOwn(v *view.View, call *ext.ToolCall) (res *ext.ToolResult, relist, ok bool) {
	if call.Name != SearchTool || s.Mode(v) != ModeSearch {
		return nil, false, false
	}
	var a SearchArgs
	if len(call.Arguments) > 0 {
		if err := json.Unmarshal(call.Arguments, &a); err != nil {
			return errorResult("%s: arguments: %v", SearchTool, err), false, true
		}
	}
	if a.Query == "" {
		return errorResult("%s: arguments: query is missing (what you want to do, in words)", SearchTool), false, true
	}
	f, changed := s.Search(v, a)
	b, err := json.Marshal(f)
	if err != nil {
		return errorResult("%s: %v", SearchTool, err), false, true
	}
	return ext.TextResult(string(b)), changed, true
}

// errorResult is a tool result reporting what was wrong with a call.
func errorResult(format string, args ...any) *ext.ToolResult {
	r := ext.TextResult(fmt.Sprintf(format, args...))
	r.IsError = true
	return r
}

// The search and call tools as a view lists tools.
var (
	searchTool = view.Tool{Name: SearchTool, Capability: "agentpool", Origin: ext.Origin{Kind: ext.OriginLocal}, Entry: ext.ToolEntry{
		Name:  SearchTool,
		Title: "Search tools",
		Description: "Find the tools (and skills) for a task, described in words. Returns the best matches with " +
			"their names, descriptions and input schemas, and makes those tools callable by name (the tool list " +
			"changes); " + CallTool + " calls any of them too. Skills found are read with load_skill.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"query":{"type":"string","description":"What you want to do, in words (e.g. \"create a GitHub issue\")."},` +
			`"server":{"type":"string","description":"Only tools of this server."},` +
			`"limit":{"type":"integer","minimum":1,"maximum":20,"description":"Most matches (default 5)."}},` +
			`"required":["query"]}`),
		Annotations: &ext.ToolAnnotations{ReadOnlyHint: true},
	}}
	callTool = view.Tool{Name: CallTool, Capability: "agentpool", Origin: ext.Origin{Kind: ext.OriginLocal}, Entry: ext.ToolEntry{
		Name:  CallTool,
		Title: "Call a tool",
		Description: "Call a tool found with " + SearchTool + " by its name, with its arguments as its input " +
			"schema says.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"name":{"type":"string","description":"The tool's name, as ` + SearchTool + ` returned it."},` +
			`"arguments":{"type":"object","description":"The tool's arguments."}},` +
			`"required":["name"]}`),
	}}
)
