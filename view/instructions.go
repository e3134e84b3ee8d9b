package view

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentpool/agentpool/ext"
)

// Instructions are a view's system prompt, in two parts so provider prompt caches hit.
type Instructions struct {
	// Static is every capability's static part (the skill catalogue, servers' own
	// instructions) in Visible order, separated by blank lines. It is byte-identical between
	// two compiles as long as nothing visible changed. Instructions from a remote origin are
	// wrapped in <instructions from="mcp://<server>"> so a model can tell whose words they are.
	Static string `json:"static"`
	// Dynamic is this turn's part: always-active skills and, when Options.Prompt was given,
	// the skills selected for it.
	Dynamic string `json:"dynamic"`
}

func instructions(members []member) Instructions {
	var static, dynamic []string
	for i := range members {
		m := &members[i]
		if s := strings.TrimSpace(m.ins.Static); s != "" {
			static = append(static, label(m.reg.Origin, s))
		}
		d := m.ins.Dynamic
		if m.turn != "" {
			d = m.turn // a turn's selection includes what is always active
		}
		if d = strings.TrimSpace(d); d != "" {
			dynamic = append(dynamic, label(m.reg.Origin, d))
		}
	}
	return Instructions{Static: strings.Join(static, "\n\n"), Dynamic: strings.Join(dynamic, "\n\n")}
}

// ServerInstructions returns, by capability name, what each MCP server of the view (a
// capability of remote origin) answered in initialize as its instructions, hidden text removed
// as in Instructions.Static but not labelled; a server that answered none, or is not connected
// yet, is absent, and so is a name two visible capabilities share (at different levels), since a
// tool's capability name could not tell whose words they are. Never nil.
func (v *View) ServerInstructions() map[string]string {
	out, shared := map[string]string{}, map[string]bool{}
	for i := range v.caps {
		m := &v.caps[i]
		name := m.reg.Capability.Name()
		_, seen := shared[name]
		shared[name] = seen
		if s := strings.TrimSpace(m.ins.Static); s != "" && m.reg.Origin.Remote() {
			out[name] = s
		}
	}
	for name, twice := range shared {
		if twice {
			delete(out, name)
		}
	}
	return out
}

// Catalogue is one capability's catalogue kept within a budget (ext.Catalogue), its size that
// of the text the view serves.
type Catalogue struct {
	// Capability is the name of the capability whose static instructions it is.
	Capability string `json:"capability"`
	ext.Catalogue
}

// String describes the catalogue on one line: "skills: 7760 of 8000 characters (7812 bytes),
// 22 listed, 4 cut: a, b, c, d", or "…: 9100 characters, no budget (…)" and "…, none cut";
// past 20 skills cut, the first 20 and "and N more".
func (c Catalogue) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d", c.Capability, c.Chars)
	if c.Budget > 0 {
		fmt.Fprintf(&b, " of %d characters", c.Budget)
	} else {
		b.WriteString(" characters, no budget")
	}
	fmt.Fprintf(&b, " (%d bytes), %d listed, ", c.Bytes, c.Listed)
	if len(c.Cut) == 0 {
		b.WriteString("none cut")
	} else {
		names := c.Cut[:min(len(c.Cut), maxCutNamed)]
		fmt.Fprintf(&b, "%d cut: %s", len(c.Cut), strings.Join(names, ", "))
		if more := len(c.Cut) - len(names); more > 0 {
			fmt.Fprintf(&b, " and %d more", more)
		}
	}
	return b.String()
}

// maxCutNamed bounds the skills String names: a large collection cuts thousands.
const maxCutNamed = 20

// catalogues returns the members' catalogues, never nil.
func catalogues(members []member) []Catalogue {
	out := []Catalogue{}
	for i := range members {
		m := &members[i]
		if m.ins.Catalogue == nil || strings.TrimSpace(m.ins.Static) == "" {
			continue
		}
		c := Catalogue{Capability: m.reg.Capability.Name(), Catalogue: *m.ins.Catalogue}
		c.Chars, c.Bytes = utf8.RuneCountInString(m.ins.Static), len(m.ins.Static)
		out = append(out, c)
	}
	return out
}

// label marks text from a remote origin with where it came from. A closing tag inside the
// text is neutralised ("&lt;/instructions"), so a server cannot end its block early and make
// what follows look like the host's own words; nothing else of its text changes.
func label(o ext.Origin, text string) string {
	if !o.Remote() {
		return text
	}
	text = closingTag.ReplaceAllStringFunc(text, func(m string) string { return "&lt;" + m[1:] })
	return `<instructions from="` + xmlAttr(o.Location) + `">` + "\n" + text + "\n</instructions>"
}

// closingTag matches the start of a closing instructions tag, in any case and spacing.
var closingTag = regexp.MustCompile(`(?i)<\s*/\s*instructions`)

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;")

func xmlAttr(s string) string { return attrEscaper.Replace(s) }

// TurnInstructions returns the dynamic instructions for one turn's prompt, asking the
// capabilities of the view that select skills per prompt (ext.TurnInstructor), and the
// always-active part of the others. It is what Compile with Options.Prompt puts in
// Instructions.Dynamic, for a view taken from a Cache. Capabilities the compile left out are
// not asked. One that fails now (closed since the compile) keeps what the compile had from
// it; its error is returned, joined, beside the text the others gave, as Compile would have
// recorded it as a problem rather than fail.
func (v *View) TurnInstructions(ctx context.Context, prompt string) (string, error) {
	members := make([]member, len(v.caps))
	var errs []error
	for i := range members {
		m := &members[i]
		c := &v.caps[i]
		m.reg, m.rank, m.ins = c.reg, i, c.ins
		if c.out || prompt == "" {
			continue
		}
		if ti, ok := m.reg.Capability.(ext.TurnInstructor); ok {
			t, err := ti.TurnInstructions(ctx, prompt)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: instructions: %w", m.reg.Capability.Name(), err))
				continue
			}
			m.turn = turnText(m, t)
		}
	}
	return instructions(members).Dynamic, errors.Join(errs...)
}
