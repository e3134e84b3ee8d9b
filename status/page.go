package status

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/view"
)

//go:embed status.html
var statusHTML string

// statusTemplate is the page. html/template escapes every value in its context: skill names,
// server errors and client names are untrusted text and are shown as text, never markup.
var statusTemplate = template.Must(template.New("status").Funcs(template.FuncMap{
	"age":   func(now, t time.Time) string { return age(now.Sub(t)) },
	"stamp": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"until": func(now, t time.Time) string {
		if !t.After(now) {
			return "due now"
		}
		return "in " + age(t.Sub(now))
	},
}).Parse(statusHTML))

// statusPage is what the template renders.
type statusPage struct {
	Version string
	Now     time.Time
	Ready   bool
	// NotReady says why not Ready.
	NotReady string
	Report   Report
	// ViewErr is why the pool's view could not be compiled for this page.
	ViewErr string
	// ViewOf is the id prefix of the session whose view the page shows ("": the pool's).
	ViewOf     string
	Skills     []skillRow
	Loose      []SkillDiagnostic // diagnostics of no listed skill (a root, a skill not loaded)
	Tools      []toolRow
	Commands   []commandRow
	Collisions []string
	Problems   []string
	// HiddenText are the definitions whose hidden text the view removed or blocked.
	HiddenText []string
	Sessions   []gateway.SessionInfo
}

type skillRow struct {
	Name, Description, Capability, Origin string
	Diagnostics                           []SkillDiagnostic
}

type toolRow struct{ Name, Capability, Origin string }

type commandRow struct {
	Name, Capability, Origin string
	// Collision says what the name was contested with, when it was.
	Collision string
}

// fromView fills the page's view sections from v, each skill with its diagnostics.
func (p *statusPage) fromView(v *view.View, diags []SkillDiagnostic) {
	byName := map[string]int{}
	for _, s := range v.Skills {
		byName[s.Name] = len(p.Skills)
		p.Skills = append(p.Skills, skillRow{Name: s.Name, Description: s.Description, Capability: s.Capability, Origin: s.Source.String()})
	}
	for _, d := range diags {
		if i, ok := byName[d.Skill]; ok && d.Skill != "" {
			p.Skills[i].Diagnostics = append(p.Skills[i].Diagnostics, d)
		} else {
			p.Loose = append(p.Loose, d)
		}
	}
	for _, t := range v.Tools {
		p.Tools = append(p.Tools, toolRow{Name: t.Name, Capability: t.Capability, Origin: t.Origin.String()})
	}
	contested := map[string]string{}
	for _, c := range v.Collisions {
		p.Collisions = append(p.Collisions, c.String())
		if c.Kind == "command" {
			contested[c.Name] = c.String()
		}
	}
	for _, c := range v.Commands {
		p.Commands = append(p.Commands, commandRow{Name: c.Name, Capability: c.Capability, Origin: c.Origin.String(), Collision: contested[c.Name]})
	}
	for _, pr := range v.Problems {
		p.Problems = append(p.Problems, pr.String())
	}
	for _, h := range v.HiddenText {
		p.HiddenText = append(p.HiddenText, h.Capability+": "+h.String())
	}
}

// renderStatus writes the page, with every control character but tab, newline and carriage
// return shown as a visible symbol: html/template escapes markup, not an ESC or an OSC
// sequence from an upstream's name, error or stderr, which a terminal or a copy of the page
// would act on. The template's own text has none, so filtering the whole page covers every
// value.
func renderStatus(w io.Writer, p *statusPage) error {
	var b strings.Builder
	if err := statusTemplate.Execute(&b, p); err != nil {
		return err
	}
	_, err := io.WriteString(w, strings.Map(controlPicture, b.String()))
	return err
}

// controlPicture returns r's visible stand-in when r is a control character, else r: C0
// controls their Unicode control pictures (ESC: U+241B), DEL U+2421, C1 controls U+FFFD.
func controlPicture(r rune) rune {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return r
	case r < 0x20:
		return 0x2400 + r
	case r == 0x7f:
		return 0x2421
	case r >= 0x80 && r <= 0x9f:
		return utf8.RuneError
	}
	return r
}

// age is d for a person: "45s", "12m", "3h05m", "2d04h".
func age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}
