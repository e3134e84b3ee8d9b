package view

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/hiddentext"
)

// HiddenTextPolicy is implemented by capabilities that choose what a view does with those of
// their definitions whose text holds hidden text (package hiddentext): an MCP server's
// hidden_text key. A capability without it is sanitized (hiddentext.PolicySanitize).
type HiddenTextPolicy interface {
	HiddenText() hiddentext.Policy
}

// HiddenText is one definition of a capability whose text held hidden text, and what the view
// did with it: removed the hidden text, or left the definition out (Blocked).
type HiddenText struct {
	Capability string `json:"capability"`
	// What is "tool", "command", "skill", "resource", "template" or "instructions".
	What string `json:"what"`
	// Name is the definition's name as its capability lists it; "" for instructions.
	Name string `json:"name,omitempty"`
	// Fields name where the hidden text was: "title", "description", "annotations.title",
	// "inputSchema", "outputSchema", "argumentHint", "arguments", "static", "dynamic".
	Fields []string `json:"fields"`
	// Classes are the classes found, sorted, each once.
	Classes []hiddentext.Class `json:"classes"`
	// Hidden are the messages the hidden text carried: what tag characters spelled, what
	// HTML comments said.
	Hidden  []string `json:"hidden,omitempty"`
	Blocked bool     `json:"blocked,omitempty"`
}

func (h HiddenText) String() string {
	act := "removed"
	if h.Blocked {
		act = "blocked"
	}
	s := fmt.Sprintf("%s %q: %s %v in %s", h.What, h.Name, act, h.Classes, strings.Join(h.Fields, ", "))
	if h.What == "instructions" {
		s = fmt.Sprintf("instructions: %s %v in %s", act, h.Classes, strings.Join(h.Fields, ", "))
	}
	if len(h.Hidden) > 0 {
		s += fmt.Sprintf(" (hidden: %q)", h.Hidden)
	}
	return s
}

// scrub collects what was removed from one definition's fields.
type scrub struct {
	fields []string
	found  []hiddentext.Finding
}

func (s *scrub) text(field string, p *string) {
	if clean, f := hiddentext.Sanitize(*p); f != nil {
		*p = clean
		s.fields = append(s.fields, field)
		s.found = append(s.found, f...)
	}
}

func (s *scrub) schema(field string, p *json.RawMessage) {
	if clean, f := hiddentext.SanitizeSchema(*p); f != nil {
		*p = clean
		s.fields = append(s.fields, field)
		s.found = append(s.found, f...)
	}
}

// hide applies the capability's hidden-text policy to everything m collected that reaches a
// model: tools (title, description, annotations' title, every string inside the schemas),
// commands and their arguments (names included), skills, resources, templates, static
// instructions, and the dynamic instructions of a remote capability (its skill text). The
// lists m holds are the capability's: a list that changes is copied first.
func (m *member) hide() {
	block := blocksHidden(m)
	keep := func(what, name string, s *scrub) bool {
		if s.found == nil {
			return true
		}
		m.hidden = append(m.hidden, report(m.reg.Capability.Name(), what, name, s, block))
		return !block
	}
	m.tools = scrubAll(m.tools, func(e *ext.ToolEntry, s *scrub) bool {
		s.text("title", &e.Title)
		s.text("description", &e.Description)
		if a := e.Annotations; a != nil {
			if t := a.Title; t != "" {
				s.text("annotations.title", &t)
				if t != a.Title {
					c := *a
					c.Title = t
					e.Annotations = &c
				}
			}
		}
		s.schema("inputSchema", &e.InputSchema)
		s.schema("outputSchema", &e.OutputSchema)
		return keep("tool", e.Name, s)
	})
	m.cmds = scrubAll(m.cmds, func(e *ext.CommandEntry, s *scrub) bool {
		s.text("title", &e.Title)
		s.text("description", &e.Description)
		s.text("argumentHint", &e.ArgumentHint)
		e.Arguments = scrubAll(e.Arguments, func(a *ext.CommandArgument, as *scrub) bool {
			as.text("name", &a.Name)
			as.text("title", &a.Title)
			as.text("description", &a.Description)
			if as.found != nil {
				s.fields = append(s.fields, "arguments")
				s.found = append(s.found, as.found...)
			}
			return true
		})
		return keep("command", e.Name, s)
	})
	m.skill = scrubAll(m.skill, func(e *ext.SkillEntry, s *scrub) bool {
		s.text("description", &e.Description)
		return keep("skill", e.Name, s)
	})
	m.res = scrubAll(m.res, func(e *ext.ResourceEntry, s *scrub) bool {
		s.text("title", &e.Title)
		s.text("description", &e.Description)
		if !keep("resource", e.Name, s) {
			m.keptRes = append(m.keptRes, keptResource{uri: e.URI, why: m.hidden[len(m.hidden)-1]})
			return false
		}
		return true
	})
	m.tmpl = scrubAll(m.tmpl, func(e *ext.ResourceTemplateEntry, s *scrub) bool {
		s.text("title", &e.Title)
		s.text("description", &e.Description)
		if !keep("template", e.Name, s) {
			m.keptRes = append(m.keptRes, keptResource{uri: e.URITemplate, template: true, why: m.hidden[len(m.hidden)-1]})
			return false
		}
		return true
	})
	var s scrub
	s.text("static", &m.ins.Static)
	if m.reg.Origin.Remote() {
		s.text("dynamic", &m.ins.Dynamic)
		s.text("dynamic", &m.turn)
	}
	if !keep("instructions", "", &s) {
		m.ins, m.turn = ext.Instructions{}, ""
	}
}

// scrubAll runs clean on a copy of each entry of list and returns the entries it keeps, with
// what it changed; list itself when it changed nothing.
func scrubAll[E any](list []E, clean func(*E, *scrub) bool) []E {
	var out []E // nil until an entry changes
	for i := range list {
		e := list[i]
		var s scrub
		kept := clean(&e, &s)
		if s.found == nil && out == nil {
			continue
		}
		if out == nil {
			out = append(make([]E, 0, len(list)), list[:i]...)
		}
		if kept {
			out = append(out, e)
		}
	}
	if out == nil {
		return list
	}
	return out
}

func report(capability, what, name string, s *scrub, blocked bool) HiddenText {
	h := HiddenText{Capability: capability, What: what, Name: name, Blocked: blocked}
	for _, f := range s.fields {
		if !slices.Contains(h.Fields, f) {
			h.Fields = append(h.Fields, f)
		}
	}
	for _, f := range s.found {
		if !slices.Contains(h.Classes, f.Class) {
			h.Classes = append(h.Classes, f.Class)
		}
		if f.Hidden != "" && !slices.Contains(h.Hidden, f.Hidden) {
			h.Hidden = append(h.Hidden, f.Hidden)
		}
	}
	slices.Sort(h.Classes)
	return h
}

// hiddenLogged holds, per registry and capability, the finding sets already logged, so that a
// view compiled again (each session's, each change) does not repeat a line.
var hiddenLogged struct {
	sync.Mutex
	seen map[string]bool
}

// logHidden writes one line per capability of v whose set of hidden-text reports was not
// logged before with reg's logger.
func logHidden(log *slog.Logger, reg *ext.Registry, hidden []HiddenText) {
	if len(hidden) == 0 || log == nil {
		return
	}
	by := map[string][]string{}
	var caps []string
	for _, h := range hidden {
		if by[h.Capability] == nil {
			caps = append(caps, h.Capability)
		}
		by[h.Capability] = append(by[h.Capability], h.String())
	}
	hiddenLogged.Lock()
	defer hiddenLogged.Unlock()
	if hiddenLogged.seen == nil {
		hiddenLogged.seen = map[string]bool{}
	}
	for _, c := range caps {
		key := fmt.Sprintf("%p\x00%s\x00%s", reg, c, strings.Join(by[c], "\x00"))
		if hiddenLogged.seen[key] {
			continue
		}
		if len(hiddenLogged.seen) >= 4096 {
			clear(hiddenLogged.seen)
		}
		hiddenLogged.seen[key] = true
		log.Warn("hidden text in definitions", "capability", c, "definitions", by[c])
	}
}

// turnText is a turn's dynamic instructions t from m as a view serves them: a remote
// capability's with hidden text removed, or none under hiddentext.PolicyBlock.
func turnText(m *member, t string) string {
	if !m.reg.Origin.Remote() {
		return t
	}
	clean, found := hiddentext.Sanitize(t)
	if found != nil && blocksHidden(m) {
		return ""
	}
	return clean
}

// blocksHidden says whether m's capability leaves out what holds hidden text
// (hiddentext.PolicyBlock) rather than removing the hidden text.
func blocksHidden(m *member) bool {
	p, ok := m.reg.Capability.(HiddenTextPolicy)
	return ok && p.HiddenText() == hiddentext.PolicyBlock
}
