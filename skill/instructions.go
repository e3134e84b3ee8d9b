package skill

import (
	"context"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// maxListedFiles caps the files named in a load_skill result.
const maxListedFiles = 50

// Instructions returns the static catalogue and the dynamic always-active content.
//
// Static is an <available-skills> block naming each skill (name and description, sorted by
// name, XML-escaped) after a one-paragraph explanation; it changes only when the skills do,
// so prompt caches can keep it. Descriptions lose their hidden text (hiddentext.Sanitize). It is empty when there are no skills. Skills marked
// disable-model-invocation are left out. With Options.CatalogueBudget, the block lists the
// skills that fit in that many characters, taken in order of precedence (their root's place
// in Roots) then name, and ends with a line counting the others and saying how to load them
// (load_skill, the skill:// resources); the same skills give the same bytes. Catalogue
// reports the budget, the size and the skills cut; it is nil when Static is empty.
//
// Dynamic holds a <skill_content name="..."> block with the full body of each always-active
// skill. A body that cannot be read is left out and logged; an empty body, and a skill marked
// disable-model-invocation (run by the user only, as a command), are left out.
func (m *Manager) Instructions(ctx context.Context) (ext.Instructions, error) {
	if err := m.check(ctx); err != nil {
		return ext.Instructions{}, err
	}
	st := m.state.Load()
	static, cat := catalogue(st.skills, m.opts.CatalogueBudget, m.rank)
	return ext.Instructions{Static: static, Dynamic: m.dynamic(st, nil), Catalogue: cat}, nil
}

// TurnInstructions returns the dynamic instructions for one turn: the always-active skills and
// the skills Options.Matcher picks for prompt (unknown names ignored, each skill once). The
// matcher is offered only the skills the model may use, and a name it returns of a skill marked
// disable-model-invocation is ignored too.
func (m *Manager) TurnInstructions(ctx context.Context, prompt string) (string, error) {
	if err := m.check(ctx); err != nil {
		return "", err
	}
	st := m.state.Load()
	var picked []string
	if m.opts.Matcher != nil {
		picked = m.opts.Matcher(prompt, entries(st.skills, true))
	}
	return m.dynamic(st, picked), nil
}

// dynamic renders the always-active skills, then the picked ones, each once. A skill the model
// may not use is never rendered, whatever asked for it; nor is an empty body.
func (m *Manager) dynamic(st *state, picked []string) string {
	var blocks []string
	seen := map[string]bool{}
	add := func(s *Skill) {
		if s == nil || seen[s.Name] || s.DisableModelInvocation {
			return
		}
		seen[s.Name] = true
		body, err := s.Body()
		if err != nil {
			m.log.Warn("skill content not included", "skill", s.Name, "err", err)
			return
		}
		if strings.TrimSpace(body) == "" {
			return
		}
		blocks = append(blocks, contentBlock(s, body, false))
	}
	for _, s := range st.skills {
		if s.AlwaysActive {
			add(s)
		}
	}
	for _, name := range picked {
		add(st.byName[name])
	}
	return strings.Join(blocks, "\n\n")
}

// contentBlock wraps a skill body in <skill_content name="...">. The body is Markdown and stays
// as written, except that a closing </skill_content tag inside it is escaped so it cannot end
// the block early. With files, the skill's directory and its other files are listed.
func contentBlock(s *Skill, body string, files bool) string {
	var b strings.Builder
	b.WriteString(`<skill_content name="`)
	b.WriteString(xmlEscape(s.Name))
	b.WriteString("\">\n")
	b.WriteString(strings.ReplaceAll(body, "</skill_content", "&lt;/skill_content"))
	if files {
		base := uriBase(s.Name)
		b.WriteString("\n\nSkill directory: ")
		b.WriteString(base)
		b.WriteString("/\nRelative paths in this skill are relative to the skill directory: read them as ")
		b.WriteString(base)
		b.WriteString("/<path>.")
		if list, more := skillFiles(s); len(list) > 0 {
			b.WriteString("\n\n<skill_resources>\n")
			for _, f := range list {
				b.WriteString("  <file>")
				b.WriteString(xmlEscape(f))
				b.WriteString("</file>\n")
			}
			if more {
				b.WriteString("  <!-- more files not listed -->\n")
			}
			b.WriteString("</skill_resources>")
		}
	}
	b.WriteString("\n</skill_content>")
	return b.String()
}

// skillFiles lists up to maxListedFiles regular files of the skill (SKILL.md, dot-files and
// node_modules left out), slash-separated and sorted. Symlinks are not followed.
func skillFiles(s *Skill) (files []string, more bool) {
	root := s.realDir
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == skillFile {
			return nil
		}
		if len(files) == maxListedFiles {
			more = true
			return filepath.SkipAll
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(files)
	return files, more
}

// xmlEscape escapes the five XML special characters.
func xmlEscape(s string) string {
	return xmlReplacer.Replace(s)
}

var xmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")
