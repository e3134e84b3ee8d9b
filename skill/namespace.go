package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// NamespacedRoot is a skill root whose skills are named "<Namespace>:<name>" (Options.NamespacedRoots):
// the skills folder of a plugin, whose skills Claude Code and Codex call "plugin:name".
type NamespacedRoot struct {
	// Namespace is kebab-case (ValidNamespace), the plugin-name rule of both hosts.
	Namespace string `json:"namespace"`
	// Dir is the folder scanned, as a root is.
	Dir string `json:"dir"`
}

// namespaceRE is the plugin-name rule of Claude Code and Codex: lower-case kebab-case.
var namespaceRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// ValidNamespace returns nil when ns is usable as a namespace: a-z, 0-9 and inner hyphens
// (^[a-z0-9]([a-z0-9-]*[a-z0-9])?$), and otherwise an error naming it.
func ValidNamespace(ns string) error {
	if !namespaceRE.MatchString(ns) {
		return fmt.Errorf("namespace %q: must be lower-case kebab-case (a-z, 0-9, inner hyphens)", ns)
	}
	return nil
}

// nsSep joins a namespace and a skill's bare name in its Name; nsSafeSep replaces it where ':'
// is not allowed (MCP tool names, capability names).
const (
	nsSep     = ":"
	nsSafeSep = "."
)

// BareName returns the skill's name without its namespace: the folder's or frontmatter's name.
func (s *Skill) BareName() string {
	if s.Namespace == "" {
		return s.Name
	}
	return strings.TrimPrefix(s.Name, s.Namespace+nsSep)
}

// SafeName returns the skill's name in the form used where ':' is not allowed: "<ns>.<name>"
// for a namespaced skill, Name for any other. Its tools are "<SafeName>__<tool>" and
// Options.Children is given it as the skill's name.
func (s *Skill) SafeName() string { return safeName(s.Name) }

// safeName turns a skill name into its SafeName form. Bare names hold neither ':' nor '.', so the
// two forms cannot be confused.
func safeName(name string) string { return strings.Replace(name, nsSep, nsSafeSep, 1) }

// uriBase returns skill://<skill-path> for a skill name: skill://<name>, or skill://<ns>/<name>
// for a namespaced one (SEP-2640: the first segment an organizational prefix, the last the
// skill's name). "skill://<ns>:<name>" would not be a URL: the ':' reads as a port.
func uriBase(name string) string { return "skill://" + strings.Replace(name, nsSep, "/", 1) }

// byURI returns the skill a parsed skill:// URI names and the path inside it ("" for the skill
// itself), or nil. skill://<ns>/<name>/<path> is the namespaced skill when namespace ns holds
// one named by the first segment; otherwise the authority is a bare skill's name and the path
// a file of it. An authority holding ':' names nothing.
func (st *state) byURI(u ext.URI) (*Skill, string) {
	if strings.Contains(u.Authority, nsSep) {
		return nil, ""
	}
	if first, rest, _ := strings.Cut(u.Path, "/"); first != "" && !strings.Contains(first, nsSep) {
		if s := st.byName[u.Authority+nsSep+first]; s != nil {
			return s, rest
		}
	}
	return st.byName[u.Authority], u.Path
}

// addNamespacedRoots checks the namespaces of Options.NamespacedRoots and appends their folders,
// absolute, to the roots.
func (m *Manager) addNamespacedRoots() error {
	nr := slices.Clone(m.opts.NamespacedRoots)
	for i, r := range nr {
		if err := ValidNamespace(r.Namespace); err != nil {
			return fmt.Errorf("skill manager: root %q: %w", r.Dir, err)
		}
		abs, err := filepath.Abs(r.Dir)
		if err != nil {
			return fmt.Errorf("skill manager: root %q: %w", r.Dir, err)
		}
		nr[i].Dir = abs
		m.roots = append(m.roots, abs)
		m.namespaces = append(m.namespaces, r.Namespace)
	}
	m.opts.NamespacedRoots = nr
	return nil
}

// hiddenFiles warns about each file or folder of a skill named like a namespace that the
// namespace's skills hide: skill://<ns>/<name>/... names the skill <ns>:<name> (state.byURI), so
// the <name> at the top of a skill called <ns> cannot be read through skill:// URIs.
func hiddenFiles(byName map[string]*Skill, skills []*Skill) []Diagnostic {
	var out []Diagnostic
	for _, s := range skills {
		owner := byName[s.Namespace]
		if s.Namespace == "" || owner == nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(owner.realDir, s.BareName())); err == nil {
			out = append(out, Diagnostic{Path: owner.Path, Severity: SeverityWarning, Message: fmt.Sprintf(
				"%s in skill %q cannot be read as %s/...: those URIs name skill %q (namespace %q); rename one",
				s.BareName(), owner.Name, uriBase(s.Name), s.Name, s.Namespace)})
		}
	}
	return out
}
