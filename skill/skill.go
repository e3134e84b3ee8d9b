package skill

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/frontmatter"
	"github.com/agentpool/agentpool/internal/regfile"
)

// maxFileSize bounds every whole-file read (a SKILL.md body, a skill file served as a resource):
// larger files are refused with an error rather than loaded into memory.
const maxFileSize = 32 << 20

// Skill is one discovered skill: its frontmatter, interpreted leniently, and where it lives.
//
// A *Skill handed out by a Manager or by Discover is a snapshot: callers must not modify it.
// Body is safe for concurrent use.
type Skill struct {
	// Name is the skill's name: the frontmatter name when it is a usable skill name, otherwise
	// the folder name (a diagnostic says so), made of a-z, 0-9 and '-'. A skill found under a
	// namespaced root (Options.NamespacedRoots) is named "<Namespace>:<that name>" (BareName
	// gives the name alone).
	Name string `json:"name"`
	// Namespace is the namespace of the root the skill was found under, empty for the others.
	Namespace   string `json:"namespace,omitempty"`
	Description string `json:"description"`
	// DeclaredName is the name as written in the frontmatter, which may differ from Name.
	DeclaredName  string            `json:"declaredName,omitempty"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// AllowedTools lists the tools the skill pre-approves. It restricts the tools the skill's own
	// MCP servers contribute only when AllowedToolsSet is true: absent means unrestricted, present
	// and empty means none.
	AllowedTools    []string `json:"allowedTools,omitempty"`
	AllowedToolsSet bool     `json:"allowedToolsSet,omitempty"`
	// UserInvocable is false only when the frontmatter says `user-invocable: false`; such a skill
	// is not a slash command.
	UserInvocable bool   `json:"userInvocable"`
	ArgumentHint  string `json:"argumentHint,omitempty"`
	// DeclaresArguments is true when the frontmatter holds `arguments` or `argument-hint`, with any
	// value: the skill's body is then a template whose placeholders GetCommand substitutes. A
	// skill that does not declare arguments is a template only when its body uses $ARGUMENTS.
	DeclaresArguments bool `json:"declaresArguments,omitempty"`
	// AlwaysActive skills (`always-active: true` or `always_active: true`) have their content in
	// every turn's dynamic instructions.
	AlwaysActive bool `json:"alwaysActive,omitempty"`
	// DisableModelInvocation skills (`disable-model-invocation: true`) stay out of the catalogue
	// the model sees; users can still run them as commands.
	DisableModelInvocation bool `json:"disableModelInvocation,omitempty"`
	// Servers are the skill's own MCP servers, from `mcp-servers` frontmatter and mcp.json.
	Servers []ServerDecl `json:"servers,omitempty"`
	// Extra holds every other frontmatter key with its decoded YAML value.
	Extra map[string]any `json:"extra,omitempty"`

	// Path is the SKILL.md file, Dir the skill folder, both as found under Root (they may pass
	// through a symlinked folder). Root is the discovery root, empty for a skill parsed alone.
	Path string `json:"path"`
	Dir  string `json:"dir"`
	Root string `json:"root,omitempty"`

	realDir string       // Dir with symlinks resolved: the root every file read is confined to
	info    os.FileInfo  // SKILL.md as read at discovery, to notice later changes
	diags   []Diagnostic // lenient diagnostics of this skill's files
	line    int          // line of the name key, for diagnostics about the skill as a whole
	body    *bodyCache
}

// URI returns the skill's SKILL.md resource URI, "skill://<name>/SKILL.md", or
// "skill://<namespace>/<name>/SKILL.md" for a namespaced skill.
func (s *Skill) URI() string { return uriBase(s.Name) + "/SKILL.md" }

// RealDir returns the skill folder with symlinks resolved: every file read is confined to it.
func (s *Skill) RealDir() string { return s.realDir }

// bodyCache keeps the body of SKILL.md until the file changes.
type bodyCache struct {
	mu    sync.Mutex
	size  int64
	mtime time.Time
	info  os.FileInfo
	body  string
	ok    bool
}

// Body returns the Markdown after the frontmatter (CRLF turned into LF, trimmed). It is read on
// first use and cached until SKILL.md changes (a different file, modification time or size).
func (s *Skill) Body() (string, error) {
	if s.body == nil {
		return "", fmt.Errorf("skill %q: no file behind this skill", s.Name)
	}
	c := s.body
	c.mu.Lock()
	defer c.mu.Unlock()
	// Confined like every other read: a SKILL.md swapped for a symlink leading out is refused.
	f, err := ext.OpenConfined(s.realDir, skillFile)
	if err != nil {
		return "", fmt.Errorf("skill %q: read %s: %w", s.Name, s.Path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("skill %q: stat %s: %w", s.Name, s.Path, err)
	}
	if c.ok && os.SameFile(info, c.info) && info.Size() == c.size && info.ModTime().Equal(c.mtime) {
		return c.body, nil
	}
	data, err := readAllLimited(f, s.Path)
	if err != nil {
		return "", fmt.Errorf("skill %q: %w", s.Name, err)
	}
	body := bodyOf(data)
	c.info, c.size, c.mtime, c.body, c.ok = info, info.Size(), info.ModTime(), body, true
	return body, nil
}

// bodyOf returns the body of a whole SKILL.md: what follows the frontmatter, or the whole file
// when there is no closed frontmatter.
func bodyOf(data []byte) string {
	return trimBody(frontmatter.NormalizeNewlines(frontmatter.Split(data).Body))
}

// readAllLimited reads f to its end, refusing files larger than maxFileSize; the error names
// name (a URI or a path) rather than the name f was opened under.
func readAllLimited(f *os.File, name string) ([]byte, error) {
	data, err := regfile.Read(f, maxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, unwrapPath(err))
	}
	return data, nil
}
