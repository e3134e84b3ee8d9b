package view

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentpool/agentpool/ext"
)

// Options configures one Compile.
type Options struct {
	// Prompt is this turn's user prompt. When set, Instructions.Dynamic also holds the skills
	// each ext.TurnInstructor selects for it; when empty, only what is always active.
	Prompt string
	// Include, when set, limits the compile to the registrations it accepts; the others are
	// not asked anything (so no server is started for them). The CLI uses it to find a local
	// tool without connecting every upstream server: a local tool wins over a remote one of
	// the same name anyway, so the narrower view routes it the same way.
	Include func(ext.Registration) bool
	// Tools, when set, keeps only the tools it accepts: the others are not listed, routed nor
	// callable through the view (an agent's allow_tools and deny_tools). It is given every
	// name a tool goes by: the served name, then the name its capability lists when the
	// tool-name rule changed it, so that a filter written with either applies. Collisions
	// are resolved before it applies, so a name means the same tool with or without it.
	Tools func(names ...string) bool
}

// View is what one scope sees, compiled: the RFC's AgentFactory.compile() result. It is
// immutable and safe for concurrent use; calls through it (CallTool, GetCommand, ReadResource)
// go to the capabilities that were visible when it was compiled.
type View struct {
	Scope ext.Scope `json:"scope"`
	// Tools are every visible tool once, by final name (sorted), with where each comes from.
	Tools []Tool `json:"tools"`
	// Commands are the merged commands (sorted by name): winners under their names, shadowed
	// ones under their qualified names.
	Commands []Command `json:"commands"`
	// Skills are every visible skill once, by name (sorted); a shadowed one is in Collisions.
	Skills []Skill `json:"skills"`
	// Resources are the skills' SKILL.md files and every upstream resource.
	Resources []Resource `json:"resources"`
	// Templates are the upstream resource templates.
	Templates []Template `json:"templates"`
	// Instructions are the system prompt parts; see Instructions.
	Instructions Instructions `json:"instructions"`
	// Catalogues are the catalogues kept within a budget among the static instructions (a
	// skill manager's), in Visible order: the budget, the size served and what was cut.
	Catalogues []Catalogue `json:"catalogues"`
	// Collisions are the names two sources both offered, and how each was resolved.
	Collisions []Collision `json:"collisions"`
	// Problems are the capabilities, or the parts of them, left out of this view and why.
	Problems []Problem `json:"problems"`
	// HiddenText are the definitions whose text held hidden text (package hiddentext), in
	// Visible order: the hidden text removed, or the definition left out (Blocked).
	HiddenText []HiddenText `json:"hidden_text"`

	reg      *ext.Registry
	tools    map[string]*Tool
	commands map[string]*Command // by name and by qualified name
	caps     []visible
}

// Tool is one tool of a view.
type Tool struct {
	// Name is the final name: unique in the view, what a model or client calls. It matches
	// ^[a-zA-Z0-9_-]{1,64}$ (ValidToolName).
	Name string `json:"name"`
	// Qualified is the name the tool had before the name rule mapped it (ServedName), as its
	// capability lists it or as a collision renamed it; "" when Name is that name.
	Qualified string `json:"qualified,omitempty"`
	// Entry is the tool as its capability describes it, with Entry.Name set to Name and hidden
	// text (package hiddentext) removed from its title, description, annotations' title and
	// the descriptions and titles inside its schemas.
	Entry      ext.ToolEntry `json:"tool"`
	Capability string        `json:"capability"`
	Origin     ext.Origin    `json:"origin"`
	Level      string        `json:"level"`

	local    string // the name the capability knows
	provider ext.ToolProvider
}

// Command is one command of a view.
type Command struct {
	ext.CommandEntry
	Capability string     `json:"capability"`
	Origin     ext.Origin `json:"origin"`

	local  string // the name the capability knows
	source ext.CommandResource
}

// Skill is one skill of a view.
type Skill struct {
	ext.SkillEntry
	Capability string `json:"capability"`
	// Source is the capability's origin (the entry's own Origin names the folder or server).
	Source ext.Origin `json:"source"`
}

// Resource is one resource of a view.
type Resource struct {
	ext.ResourceEntry
	Capability string     `json:"capability"`
	Origin     ext.Origin `json:"origin"`
}

// Template is one resource template of a view.
type Template struct {
	ext.ResourceTemplateEntry
	Capability string     `json:"capability"`
	Origin     ext.Origin `json:"origin"`
}

// Problem says why a capability, or one part of what it offers, is not in a view.
type Problem struct {
	Capability string `json:"capability"`
	// What is the part: "tools", "commands", "skills", "resources", "templates",
	// "instructions", or "capability" for the whole (a degraded server).
	What string `json:"what"`
	Err  string `json:"error"`
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Capability, p.What, p.Err) }

// member is one visible capability and what it contributed.
type member struct {
	reg   ext.Registration
	rank  int // position in Visible order
	tools []ext.ToolEntry
	cmds  []ext.CommandEntry
	skill []ext.SkillEntry
	res   []ext.ResourceEntry
	tmpl  []ext.ResourceTemplateEntry
	ins   ext.Instructions
	turn  string
	probs []Problem
	out   bool // left out of the view (unhealthy or unreachable): asked nothing more
	// hidden are the definitions hide sanitized or blocked.
	hidden []HiddenText
	// keptRes are the resources and templates hide left out (hidden_text: block).
	keptRes []keptResource
}

// visible is what a view keeps of a member once compiled: what its methods ask the
// capabilities again or report of them. What a member listed is in the view's own lists, so
// holding the member (twice the size, and its listings) would only cost every session's view.
type visible struct {
	reg     ext.Registration
	ins     ext.Instructions
	out     bool
	keptRes []keptResource
}

// Compile asks every capability reg makes visible at scope for what it contributes and
// assembles the view. A capability registered in several visible slots is asked once, as
// registered in the slot that precedes (see distinct). Capabilities are asked concurrently,
// each in its own goroutine. A
// capability that is degraded or closed (ext.HealthReporter) contributes nothing; one whose
// listing fails contributes the rest; both are reported in Problems and never fail the
// compile. A degraded capability is still asked for its tools, since asking is what lets it
// probe its server and recover. The error is ctx's, when it ends first.
func Compile(ctx context.Context, reg *ext.Registry, scope ext.Scope, opts *Options) (*View, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	regs := reg.Registrations(scope)
	if o.Include != nil {
		kept := regs[:0]
		for _, r := range regs {
			if o.Include(r) {
				kept = append(kept, r)
			}
		}
		regs = kept
	}
	regs = distinct(regs)
	members := make([]member, len(regs))
	var wg sync.WaitGroup
	for i, r := range regs {
		members[i] = member{reg: r, rank: i}
		wg.Go(func() {
			members[i].collect(ctx, o.Prompt)
			members[i].hide()
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compile %s: %w", scope, err)
	}
	v := &View{Scope: scope, reg: reg, caps: make([]visible, len(members))}
	for i, m := range members {
		v.caps[i] = visible{reg: m.reg, ins: m.ins, out: m.out, keptRes: m.keptRes}
	}
	v.HiddenText = []HiddenText{}
	for _, m := range members {
		v.Problems = append(v.Problems, m.probs...)
		v.HiddenText = append(v.HiddenText, m.hidden...)
	}
	logHidden(reg.Logger(), reg, v.HiddenText)
	v.assembleTools(members, o.Tools)
	v.assembleCommands(members)
	v.assembleSkills(members)
	v.assembleResources(members)
	v.Instructions = instructions(members)
	v.Catalogues = catalogues(members)
	if v.Collisions == nil {
		v.Collisions = []Collision{}
	}
	if v.Problems == nil {
		v.Problems = []Problem{}
	}
	return v, nil
}

// distinct keeps one registration per capability: ext lets the same value be registered in
// several slots (pool and a session, say), and asking it twice would list its tools, commands
// and skills twice, against themselves. The registration kept is the one that precedes (origin,
// then narrowest scope, then Visible order), so the view reports it as the winner would be.
func distinct(regs []ext.Registration) []ext.Registration {
	best := make(map[ext.Capability]int, len(regs))
	dup := false
	for i, r := range regs {
		j, ok := best[r.Capability]
		if !ok {
			best[r.Capability] = i
			continue
		}
		dup = true
		a, b := member{reg: r, rank: i}, member{reg: regs[j], rank: j}
		if precedes(&a, &b) < 0 {
			best[r.Capability] = i
		}
	}
	if !dup {
		return regs
	}
	out := make([]ext.Registration, 0, len(best))
	for i, r := range regs {
		if best[r.Capability] == i {
			out = append(out, r)
		}
	}
	return out
}

// collect asks one capability for everything it offers.
func (m *member) collect(ctx context.Context, prompt string) {
	c := m.reg.Capability
	name := c.Name()
	fail := func(what string, err error) {
		m.probs = append(m.probs, Problem{Capability: name, What: what, Err: err.Error()})
	}
	health := func() (ext.Health, bool) {
		h, ok := c.(ext.HealthReporter)
		if !ok {
			return ext.Health{}, false
		}
		st := h.Health()
		return st, st.State == ext.HealthDegraded || st.State == ext.HealthClosed
	}
	unhealthy := func(st ext.Health) {
		msg := string(st.State)
		if st.Err != "" {
			msg += ": " + st.Err
		}
		m.tools = nil
		m.out = true
		m.probs = append(m.probs, Problem{Capability: name, What: "capability", Err: msg})
	}
	if st, bad := health(); bad && st.State == ext.HealthClosed {
		unhealthy(st)
		return
	}
	var err error
	if b, ok := c.(ext.ToolBlocker); ok {
		defer func() { // after Tools: the tools its listing kept out
			for _, n := range b.BlockedTools() {
				if err := b.BlockedTool(n); err != nil {
					fail("tools", err)
				}
			}
		}()
	}
	if tp, ok := c.(ext.ToolProvider); ok {
		// A degraded server is asked too: asking is what probes it (at most once per its
		// backoff), and a recovery brings its tools back.
		if m.tools, err = tp.Tools(ctx); err != nil {
			m.tools = nil
			if st, bad := health(); bad {
				unhealthy(st)
				return
			}
			fail("tools", err)
			// A source that cannot list its tools (an unreachable server) has nothing else to
			// offer either; asking again for each kind would only repeat the wait.
			if m.reg.Origin.Remote() {
				m.out = true
				return
			}
		}
	}
	if st, bad := health(); bad {
		unhealthy(st)
		return
	}
	if in, ok := c.(ext.Instructor); ok {
		if m.ins, err = in.Instructions(ctx); err != nil {
			fail("instructions", err)
		}
	}
	if prompt != "" {
		if ti, ok := c.(ext.TurnInstructor); ok {
			if m.turn, err = ti.TurnInstructions(ctx, prompt); err != nil {
				fail("instructions", err)
			}
		}
	}
	if cr, ok := c.(ext.CommandResource); ok {
		if m.cmds, err = cr.ListCommands(ctx); err != nil {
			fail("commands", err)
		}
	}
	if sr, ok := c.(ext.SkillResource); ok {
		if m.skill, err = sr.ListSkills(ctx); err != nil {
			fail("skills", err)
		}
	}
	if rs, ok := c.(ext.ResourceSource); ok {
		if m.res, err = rs.ListResources(ctx); err != nil {
			fail("resources", err)
		}
	}
	if ts, ok := c.(ext.ResourceTemplateSource); ok {
		if m.tmpl, err = ts.ListResourceTemplates(ctx); err != nil {
			fail("templates", err)
		}
	}
}
