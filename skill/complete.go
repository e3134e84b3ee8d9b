package skill

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// PathTemplate is the resource template of every skill file, whose one variable, path, the
// manager completes.
const PathTemplate = "skill://{+path}"

// maxCompletions is MCP's bound on the values of one completion.
const maxCompletions = 100

// Complete completes the path of PathTemplate: first the skill paths (a skill's name;
// "<ns>/<name>" for a namespaced one) that start with the value, sorted, then the files of the
// skills the value names or begins (SKILL.md first, then the others sorted, walked as
// load_skill lists them: no dot-files, no node_modules, symlinks not followed), all compared
// without case. A value written as a whole URI ("skill://he") gets whole URIs back. At most
// 100 values; HasMore when there were more, Total when there were not. Any other reference is
// an empty completion.
func (m *Manager) Complete(ctx context.Context, req *ext.CompleteRequest) (*ext.CompleteResult, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	out := &ext.CompleteResult{Values: []string{}}
	if req == nil || req.Ref.Type != "ref/resource" || req.Ref.URI != PathTemplate {
		return out, nil
	}
	value, scheme := req.Argument.Value, ""
	if rest, ok := strings.CutPrefix(value, "skill://"); ok {
		value, scheme = rest, "skill://"
	}
	prefix := strings.ToLower(value)
	add := func(p string) bool {
		if !strings.HasPrefix(strings.ToLower(p), prefix) {
			return true
		}
		if len(out.Values) == maxCompletions {
			out.HasMore = true
			return false
		}
		out.Values = append(out.Values, scheme+p)
		return true
	}
	type named struct {
		s    *Skill
		path string
	}
	var skills []named
	for _, s := range m.state.Load().skills {
		skills = append(skills, named{s, strings.TrimPrefix(uriBase(s.Name), "skill://")})
	}
	slices.SortFunc(skills, func(a, b named) int { return strings.Compare(a.path, b.path) })
	for _, n := range skills {
		if !add(n.path) {
			return out, nil
		}
	}
	for _, n := range skills {
		lower := strings.ToLower(n.path)
		if !strings.HasPrefix(lower, prefix) && !strings.HasPrefix(prefix, lower+"/") {
			continue
		}
		if !add(n.path + "/" + skillFile) {
			return out, nil
		}
		for _, f := range completionFiles(n.s, maxCompletions+1) {
			if !add(n.path + "/" + f) {
				return out, nil
			}
		}
	}
	out.Total = len(out.Values)
	return out, nil
}

// maxCompletionWalk bounds the files one completion reads the names of in a skill.
const maxCompletionWalk = 10000

// completionFiles lists up to limit regular files of s other than its SKILL.md, sorted, as
// skillFiles does, among the first maxCompletionWalk files of at most DefaultMaxFolders
// folders.
func completionFiles(s *Skill, limit int) []string {
	var files []string
	folders := 0
	root := s.realDir
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || skipped[name]) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if folders++; folders > DefaultMaxFolders {
				return filepath.SkipAll
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == skillFile || !d.Type().IsRegular() {
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		if len(files) == maxCompletionWalk {
			return filepath.SkipAll
		}
		return nil
	})
	slices.Sort(files)
	return files[:min(len(files), limit)]
}
