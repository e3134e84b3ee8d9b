package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/hiddentext"
)

// LoadSkillTool is the name of the tool that loads a skill's instructions.
const LoadSkillTool = "load_skill"

// toolSep joins a skill name and a child tool name: "<skill>__<tool>" (ext.ToolName).
const toolSep = ext.ToolSep

var loadSkillSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string",` +
	`"description":"The skill's name, as listed in <available-skills>."}},"required":["name"],"additionalProperties":false}`)

// loadSkillEntry describes the load_skill tool.
func loadSkillEntry() ext.ToolEntry {
	return ext.ToolEntry{
		Name:        LoadSkillTool,
		Title:       "Load skill",
		Description: "Load the full instructions of a skill listed in <available-skills>, by name, before doing a task that matches its description.",
		InputSchema: loadSkillSchema,
		Annotations: &ext.ToolAnnotations{Title: "Load skill", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}
}

// offersLoadSkill reports whether load_skill is offered: when at least one skill is not marked
// disable-model-invocation. A skill so marked is never given to the model, so a catalogue of
// only such skills has nothing for load_skill to load.
func offersLoadSkill(skills []*Skill) bool {
	return slices.ContainsFunc(skills, func(s *Skill) bool { return !s.DisableModelInvocation })
}

// routeTable is where each listed child tool goes, and the skills it was built from: a listing
// that read the skills before a rescan may finish after it, and its routes (to children since
// closed, or to tools allowed-tools now excludes) must not be used.
type routeTable struct {
	st     *state
	routes map[string]route
}

// route is where a prefixed child tool goes.
type route struct {
	child *child
	tool  string
}

// Tools returns load_skill (when at least one skill may be used by the model: see
// offersLoadSkill) and the tools of the skills' own MCP servers built through
// Options.Children, named "<skill>__<tool>" and filtered by each skill's allowed-tools.
// Children are created on first use; a child that fails to list its tools is left out (and
// logged) while the rest stay available. Without Options.Children a skill's servers are each
// session's (NewServers), and the manager lists only load_skill.
func (m *Manager) Tools(ctx context.Context) ([]ext.ToolEntry, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	var out []ext.ToolEntry
	if offersLoadSkill(m.state.Load().skills) {
		out = append(out, loadSkillEntry())
	}
	return append(out, m.kids.tools(ctx)...), nil
}

// tools lists the children's tools, as "<skill>__<tool>", and records where each routes to.
func (c *children) tools(ctx context.Context) []ext.ToolEntry {
	tools, table := c.collect(ctx)
	c.routes.Store(table)
	return tools
}

// collect lists every child tool and where each routes to.
func (c *children) collect(ctx context.Context) ([]ext.ToolEntry, *routeTable) {
	st := c.m.state.Load()
	type listing struct {
		s     *Skill
		k     *child
		tools []ext.ToolEntry
	}
	var jobs []*listing
	for _, s := range st.skills {
		for _, k := range c.forSkill(ctx, s) {
			jobs = append(jobs, &listing{s: s, k: k})
		}
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			tp, ok := j.k.cap.(ext.ToolProvider)
			if !ok {
				return
			}
			tools, err := tp.Tools(ctx)
			if err != nil {
				c.m.log.Warn("skill MCP server tools unavailable", "skill", j.s.Name, "server", j.k.decl.Name, "err", err)
				return
			}
			j.tools = tools
		})
	}
	wg.Wait()
	var out []ext.ToolEntry
	routes := map[string]route{}
	for _, j := range jobs {
		for _, t := range j.tools {
			if !toolAllowed(j.s, j.k.decl.Name, t.Name) {
				continue
			}
			if found := blockedHidden(j.k.cap, t); found != nil {
				if _, seen := c.blocked.LoadOrStore(j.s.Name+"\x00"+j.k.decl.Name+"\x00"+t.Name, true); !seen {
					c.m.log.Warn("skill MCP tool left out: its text hides text", "skill", j.s.Name, "server", j.k.decl.Name, "tool", t.Name, "found", found)
				}
				continue
			}
			name := ext.ToolName(j.s.SafeName(), t.Name)
			if _, dup := routes[name]; dup {
				c.m.log.Warn("skill MCP tool name collision; first server kept", "skill", j.s.Name, "tool", t.Name, "server", j.k.decl.Name)
				continue
			}
			routes[name] = route{child: j.k, tool: t.Name}
			t.Name = name
			out = append(out, t)
		}
	}
	return out, &routeTable{st: st, routes: routes}
}

// blockedHidden returns the hidden text of tool t (package hiddentext: in its title,
// description, annotations' title or schemas) when its server k keeps such tools out
// (hiddentext.PolicyBlock, a server's hidden_text: block); nil otherwise.
func blockedHidden(k ext.Capability, t ext.ToolEntry) []hiddentext.Finding {
	p, ok := k.(interface{ HiddenText() hiddentext.Policy })
	if !ok || p.HiddenText() != hiddentext.PolicyBlock {
		return nil
	}
	found := hiddentext.Scan(t.Title)
	found = append(found, hiddentext.Scan(t.Description)...)
	if t.Annotations != nil {
		found = append(found, hiddentext.Scan(t.Annotations.Title)...)
	}
	_, in := hiddentext.SanitizeSchema(t.InputSchema)
	_, out := hiddentext.SanitizeSchema(t.OutputSchema)
	return append(append(found, in...), out...)
}

// toolAllowed applies a skill's allowed-tools to one child tool: absent means every tool, an
// empty list none. An entry allows a tool when it equals, or matches as a path.Match pattern,
// the tool's name, "<server>__<tool>", "<skill>__<tool>" or "mcp__<server>__<tool>".
func toolAllowed(s *Skill, server, tool string) bool {
	if !s.AllowedToolsSet {
		return true
	}
	names := []string{tool, server + toolSep + tool, s.SafeName() + toolSep + tool, s.BareName() + toolSep + tool, "mcp" + toolSep + server + toolSep + tool}
	for _, pattern := range s.AllowedTools {
		for _, n := range names {
			if pattern == n {
				return true
			}
			if ok, err := path.Match(pattern, n); err == nil && ok {
				return true
			}
		}
	}
	return false
}

// CallTool calls load_skill or a child tool "<skill>__<tool>" built through Options.Children. An unknown tool, or a child tool
// that the skill's allowed-tools excludes, is ErrNotFound. Child errors are returned wrapped.
func (m *Manager) CallTool(ctx context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	name := call.Name
	if name == LoadSkillTool {
		return m.loadSkill(call.Arguments), nil
	}
	return m.kids.call(ctx, call)
}

// call calls a child tool "<skill>__<tool>". An unknown tool, or one that the skill's
// allowed-tools excludes, is ErrNotFound. Child errors are returned wrapped.
func (c *children) call(ctx context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	name := call.Name
	if !strings.Contains(name, toolSep) {
		return nil, fmt.Errorf("skill manager %q: tool %q: %w", c.owner, name, ext.ErrNotFound)
	}
	var r route
	ok := false
	if t := c.routes.Load(); t != nil && t.st == c.m.state.Load() {
		r, ok = t.routes[name]
	}
	if !ok {
		// Not listed yet, or the skills changed since the last listing.
		_, t := c.collect(ctx)
		c.routes.Store(t)
		r, ok = t.routes[name]
	}
	if !ok {
		return nil, fmt.Errorf("skill manager %q: tool %q: %w", c.owner, name, ext.ErrNotFound)
	}
	tp, _ := r.child.cap.(ext.ToolProvider) // routes hold only children that listed tools
	forward := *call
	forward.Name = r.tool
	res, err := tp.CallTool(ctx, &forward)
	if err != nil {
		return nil, fmt.Errorf("skill %q: MCP server %q: tool %q: %w", r.child.skill, r.child.decl.Name, r.tool, err)
	}
	return res, nil
}

// loadSkill runs the load_skill tool. Bad arguments, unknown names, skills the model may not
// use (disable-model-invocation) and URIs of files inside a skill are tool errors (IsError)
// that say what to do instead, so the model sees them and can correct itself. A skill:// URI
// naming the skill itself (skill://<name>, skill://<name>/SKILL.md, skill://<ns>/<name>/SKILL.md)
// is taken as its name. A name no skill has exactly is compared without case, "-", "_" and
// spaces (looseMatches): one match is loaded, several are an error naming them; no match is an
// error listing close names and the skills the model may load. A bare name never reaches a
// namespaced skill.
func (m *Manager) loadSkill(args json.RawMessage) *ext.ToolResult {
	fail := func(format string, a ...any) *ext.ToolResult {
		res := ext.TextResult(fmt.Sprintf(format, a...))
		res.IsError = true
		return res
	}
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.Name) == "" {
		return fail(`load_skill needs {"name": "<skill name>"}, with a name from <available-skills>.`)
	}
	name := strings.TrimSpace(in.Name)
	if strings.HasPrefix(name, "skill://") {
		u, err := ext.ParseURI(name)
		if err != nil {
			return fail("load_skill takes a skill name from <available-skills>, not a URI; %q is not a valid skill:// URI: %v.", name, err)
		}
		s, rel := m.state.Load().byURI(u)
		if s == nil {
			return fail("No skill at %s. Use a name from <available-skills>.", name)
		}
		if rel != "" && rel != skillFile {
			return fail("load_skill takes a skill name, not a file: to load the skill, call load_skill with name %q; "+
				"%s is a file of that skill, to be read as a resource once the skill is loaded.", s.Name, name)
		}
		name = s.Name
	}
	st := m.state.Load()
	s := st.byName[name]
	if s == nil {
		switch found := looseMatches(name, st.skills); len(found) {
		case 0:
		case 1:
			s, name = found[0], found[0].Name
		default:
			return fail("Skill name %q is ambiguous: it may be %s. Call load_skill with one of these names.", name, quotedNames(found))
		}
	}
	if s != nil && s.DisableModelInvocation {
		how := ""
		if s.UserInvocable {
			how = fmt.Sprintf(", as the /%s command", name)
		}
		return fail("Skill %q is marked disable-model-invocation: only the user runs it%s. It cannot be loaded by the model.", name, how)
	}
	if s == nil {
		msg := fmt.Sprintf("No skill named %q.", name)
		usable := slices.DeleteFunc(slices.Clone(st.skills), func(s *Skill) bool { return s.DisableModelInvocation })
		if close := closeNames(name, usable); len(close) > 0 {
			msg += " Did you mean: " + strings.Join(close, ", ") + "?"
		}
		if len(usable) > 0 {
			msg += " Skills you can load: " + listNames(usable, maxListedSkills) + "."
		}
		return fail("%s", msg)
	}
	body, err := s.Body()
	if err != nil {
		return fail("Skill %q could not be read: %v", name, err)
	}
	return ext.TextResult(contentBlock(s, body, true))
}

// maxListedSkills bounds the names a load_skill error lists.
const maxListedSkills = 50

// looseKey is a skill name as load_skill compares it when no skill has the exact name: lower
// case, without "-", "_" and spaces.
func looseKey(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ' ' {
			return -1
		}
		return r
	}, name)
	return strings.ToLower(name)
}

// looseMatches returns the skills whose looseKey is name's: those the model may use when there
// are any (a skill marked disable-model-invocation is never offered as a candidate), else the
// others, so the refusal names the skill. A bare name never matches a namespaced skill: the
// key keeps the namespace separator.
func looseMatches(name string, skills []*Skill) []*Skill {
	key := looseKey(name)
	var usable, hidden []*Skill
	for _, s := range skills {
		if looseKey(s.Name) != key {
			continue
		}
		if s.DisableModelInvocation {
			hidden = append(hidden, s)
		} else {
			usable = append(usable, s)
		}
	}
	if len(usable) > 0 {
		return usable
	}
	return hidden[:min(len(hidden), 1)]
}

// quotedNames lists the skills' names quoted, joined by commas and a final "or".
func quotedNames(skills []*Skill) string {
	q := make([]string, len(skills))
	for i, s := range skills {
		q[i] = strconv.Quote(s.Name)
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// listNames joins the names of up to limit skills, saying how many more there are.
func listNames(skills []*Skill, limit int) string {
	var names []string
	for _, s := range skills[:min(len(skills), limit)] {
		names = append(names, s.Name)
	}
	out := strings.Join(names, ", ")
	if n := len(skills) - limit; n > 0 {
		out += fmt.Sprintf(" and %d more", n)
	}
	return out
}

// closeNames returns up to five skill names near name: containing it, contained in it, or
// within an edit distance of a third of its length (at least 2).
func closeNames(name string, skills []*Skill) []string {
	type scored struct {
		name string
		d    int
	}
	lower := strings.ToLower(name)
	limit := max(2, len(lower)/3)
	var found []scored
	for _, s := range skills {
		d := editDistance(lower, s.Name)
		if strings.Contains(s.Name, lower) || strings.Contains(lower, s.Name) {
			d = min(d, 1)
		}
		if d <= limit {
			found = append(found, scored{s.Name, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	var out []string
	for _, f := range found[:min(len(found), 5)] {
		out = append(out, f.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Children returns the capabilities built so far for the skills' MCP servers (ext.Composite).
// It creates none: children are built lazily, when the skills' tools are first needed, so a
// registry asking at registration sees only those that exist. The factory in Options.Children
// is the place to record each new child (package config calls ext.Registry.AddChild there).
func (m *Manager) Children() []ext.Capability {
	if m.closed.Load() {
		return nil
	}
	return m.kids.capabilities()
}

// capabilities returns the children built so far.
func (c *children) capabilities() []ext.Capability {
	var out []ext.Capability
	for _, k := range c.all() {
		out = append(out, k.cap)
	}
	return out
}
