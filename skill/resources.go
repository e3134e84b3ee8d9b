package skill

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/regfile"
)

// ListSkills lists the skills, sorted by name: URI skill://<name>/SKILL.md (a namespaced skill's
// skill://<ns>/<name>/SKILL.md), MIME text/markdown,
// Origin the skill folder.
func (m *Manager) ListSkills(ctx context.Context) ([]ext.SkillEntry, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	return entries(m.state.Load().skills, false), nil
}

// entries turns skills into SkillEntries; catalogue leaves out skills hidden from the model.
func entries(skills []*Skill, catalogue bool) []ext.SkillEntry {
	out := make([]ext.SkillEntry, 0, len(skills))
	for _, s := range skills {
		if catalogue && s.DisableModelInvocation {
			continue
		}
		out = append(out, ext.SkillEntry{URI: s.URI(), Name: s.Name, Description: s.Description,
			MIMEType: "text/markdown", Origin: s.Dir})
	}
	return out
}

// locate parses a skill:// URI into the skill and the file path inside it ("SKILL.md" when the
// URI names the skill alone): skill://<name>/<path>, or skill://<ns>/<name>/<path> (state.byURI). A URI of another scheme or an unknown skill is ErrNotFound.
func (m *Manager) locate(uri string) (*Skill, string, error) {
	u, err := ext.ParseURI(uri)
	if err != nil {
		return nil, "", err
	}
	if u.Scheme != "skill" {
		return nil, "", fmt.Errorf("skill manager %q: %s: not a skill:// URI: %w", m.name, uri, ext.ErrNotFound)
	}
	s, rel := m.state.Load().byURI(u)
	if s == nil {
		return nil, "", fmt.Errorf("skill manager %q: %s: no such skill: %w", m.name, uri, ext.ErrNotFound)
	}
	if rel == "" {
		rel = skillFile
	}
	return s, rel, nil
}

// SuggestSkill implements ext.SkillSuggester: for a skill:// URI naming none of the manager's
// skills it returns the URI under the name of each skill whose name matches the URI's skill
// path as load_skill compares names (looseKey: without case, "-", "_" and spaces; a namespaced
// skill's namespace and name together), the file path kept, sorted. A URI naming a skill, or
// near none, gives none.
func (m *Manager) SuggestSkill(ctx context.Context, uri string) []string {
	u, err := ext.ParseURI(uri)
	if m.check(ctx) != nil || err != nil || u.Scheme != "skill" || u.Authority == "" {
		return nil
	}
	st := m.state.Load()
	if s, _ := st.byURI(u); s != nil {
		return nil
	}
	first, rest, _ := strings.Cut(u.Path, "/")
	var near []string
	for _, s := range st.skills {
		key, path := looseKey(u.Authority), u.Path
		if s.Namespace != "" {
			key, path = looseKey(u.Authority+nsSep+first), rest
		}
		if looseKey(s.Name) != key {
			continue
		}
		hint := uriBase(s.Name)
		if path != "" {
			hint += "/" + path
		}
		near = append(near, hint)
	}
	slices.Sort(near)
	return near
}

// ReadSkill reads skill://<name>/<path> (skill://<ns>/<name>/<path> for a namespaced skill);
// skill://<name> alone means its SKILL.md. The file is
// opened confined to the skill folder (symlinks resolved): a path leaving it, in any encoding,
// or a file symlinked from outside, is ErrPathTraversal; a missing file or folder is
// ErrNotFound. Text files come back as Text, others as Blob, with a MIME type from the
// extension.
func (m *Manager) ReadSkill(ctx context.Context, uri string) ([]ext.ResourceContents, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	s, rel, err := m.locate(uri)
	if err != nil {
		return nil, err
	}
	f, err := ext.OpenConfined(s.realDir, rel)
	if err != nil {
		return nil, fmt.Errorf("skill %q: read %s: %w", s.Name, uri, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("skill %q: read %s: %w", s.Name, uri, err)
	}
	if info.IsDir() {
		return nil, fmt.Errorf("skill %q: read %s: is a folder, not a file: %w", s.Name, uri, ext.ErrNotFound)
	}
	data, err := readAllLimited(f, uri)
	if err != nil {
		return nil, fmt.Errorf("skill %q: %w", s.Name, err)
	}
	mt := mimeType(rel, data)
	out := ext.ResourceContents{URI: uri, MIMEType: mt}
	if isText(mt) && utf8.Valid(data) {
		out.Text = string(data)
	} else {
		out.Blob = data
	}
	return []ext.ResourceContents{out}, nil
}

// SkillExists reports whether uri names a skill this manager has and, for a file path, whether
// that file exists inside the skill folder as a regular file, the only kind ReadSkill reads: a
// folder is false, a named pipe, a device or a socket an error wrapping regfile.ErrNotRegular
// that says what it is, as ReadSkill's (so exists and read agree, and the router reports why).
// It reads no file: one stat at most after the confinement check. A path leaving the skill
// folder returns an ErrPathTraversal error.
func (m *Manager) SkillExists(ctx context.Context, uri string) (bool, error) {
	if err := m.check(ctx); err != nil {
		return false, err
	}
	s, rel, err := m.locate(uri)
	if err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, err
	}
	if rel == skillFile {
		return true, nil
	}
	target, err := ext.Confine(s.realDir, rel)
	if err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("skill %q: %s: %w", s.Name, uri, err)
	}
	info, err := os.Stat(target)
	switch {
	case err != nil || info.IsDir():
		return false, nil
	case !info.Mode().IsRegular():
		return false, fmt.Errorf("skill %q: %s: %w", s.Name, uri, &regfile.NotRegularError{Mode: info.Mode()})
	}
	return true, nil
}

// mimeTypes covers the files skills usually hold, where the system MIME table may be silent.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".py": "text/x-python",
	".sh": "text/x-shellscript", ".bash": "text/x-shellscript", ".js": "text/javascript", ".mjs": "text/javascript",
	".ts": "text/x-typescript", ".tsx": "text/x-typescript", ".jsx": "text/javascript", ".json": "application/json",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml", ".xml": "application/xml",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv", ".go": "text/x-go",
	".rb": "text/x-ruby", ".rs": "text/x-rust", ".java": "text/x-java", ".sql": "application/sql",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".pdf": "application/pdf", ".zip": "application/zip", ".ttf": "font/ttf",
	".woff": "font/woff", ".woff2": "font/woff2",
}

// mimeType picks a MIME type from the file's extension; a file without a known extension is
// text/plain when it is UTF-8 without NUL bytes, application/octet-stream otherwise.
func mimeType(rel string, data []byte) string {
	ext := strings.ToLower(path.Ext(rel))
	if t, ok := mimeTypes[ext]; ok {
		return t
	}
	if ext != "" {
		if t := mime.TypeByExtension(ext); t != "" {
			if i := strings.IndexByte(t, ';'); i >= 0 {
				t = t[:i]
			}
			return t
		}
	}
	if utf8.Valid(data) && !strings.ContainsRune(string(data[:min(len(data), 8192)]), 0) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// isText reports whether a MIME type is textual.
func isText(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/json", "application/yaml", "application/toml", "application/xml", "application/sql",
		"image/svg+xml", "application/javascript", "application/x-sh":
		return true
	}
	return false
}

// isNotFound reports an ErrNotFound error.
func isNotFound(err error) bool { return errors.Is(err, ext.ErrNotFound) }
