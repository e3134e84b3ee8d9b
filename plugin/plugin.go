package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/internal/regfile"
)

// Format is the kind of manifest a plugin folder has.
type Format string

const (
	// FormatClaude is a Claude Code plugin: .claude-plugin/plugin.json.
	FormatClaude Format = "claude"
	// FormatCodex is a Codex plugin: .codex-plugin/plugin.json.
	FormatCodex Format = "codex"
	// FormatNone is a folder without a manifest: its name is the folder's.
	FormatNone Format = ""
)

// The manifests' places in a plugin folder, in the order they are looked for.
const (
	ClaudeManifest = ".claude-plugin/plugin.json"
	CodexManifest  = ".codex-plugin/plugin.json"
)

// MaxFileSize bounds every JSON file read here (manifest, marketplace, .mcp.json, the other
// tools' state): 1 MiB, as a config file.
const MaxFileSize = 1 << 20

// maxListed bounds the files listed of an agents folder.
const maxListed = 1000

// Author is who wrote a plugin.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Icon is an image a manifest names for the plugin (Codex's interface.composerIcon and logo,
// or an "icons" list of {src, mimeType, sizes}); Src is as written, a path inside the plugin
// or a URL.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mime_type,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
}

// Plugin is one plugin folder, read.
type Plugin struct {
	Name, Version, Description    string
	Author                        *Author
	Homepage, Repository, License string
	Keywords                      []string
	Icons                         []Icon
	Format                        Format
	// Dir is the plugin root, absolute, symlinks resolved.
	Dir string
	// DataDir, when not "", is the plugin's folder for data that outlives an update
	// (${CLAUDE_PLUGIN_DATA}, ${PLUGIN_DATA}); LoadPlugin leaves it "" and the caller sets it.
	DataDir string
	// Manifest is the manifest file, "" without one.
	Manifest string
	// Source is where it was found: "config", "marketplace:<name>", "claude-code", "codex" or
	// "project" (set by Load or the caller, not LoadPlugin).
	Source string
	// Marketplace is the name of the marketplace that lists it (for an installed plugin, the
	// one Claude Code or Codex installed it from); "" for a plugin of plugins.dirs.
	Marketplace string
	Enabled     bool
	// SkillDirs are the folders holding skills: <Dir>/skills if it exists, plus the manifest's
	// "skills" paths, each inside Dir.
	SkillDirs []string
	// CommandDirs are the folders (or single .md files) holding commands: <Dir>/commands if
	// it exists, plus the manifest's "commands" paths.
	CommandDirs []string
	// MCP are the places MCP servers are declared: <Dir>/.mcp.json if it exists, and the
	// manifest's "mcpServers" (a path, a list of paths, or an inline object).
	MCP []MCPSource
	// Agents are the agent definition files (agents/*.md and the manifest's "agents"):
	// listed, never run.
	Agents []string
	// Hooks are the hook definitions (hooks/hooks.json, the manifest's "hooks" path, or
	// "<manifest>#hooks" when inline): listed, never run.
	Hooks []string
	// Unknown are the manifest keys not understood, sorted.
	Unknown []string
	// Files are every file or folder whose change changes this plugin: the folder itself, the
	// manifest and each MCPSource file.
	Files       []string
	Diagnostics []Diagnostic
}

// MCPSource is one place MCP servers are declared: a file (Data is its bytes) or a manifest's
// inline object (File is the manifest, Inline true, Data a JSON object {"mcpServers": {...}}:
// the manifest's own bytes, so that a problem's line and column are the manifest's; its other
// keys are not servers and config.ParseServers does not read them).
type MCPSource struct {
	File   string
	Inline bool
	Data   []byte
}

// Vars returns the root variables a plugin's .mcp.json may use: CLAUDE_PLUGIN_ROOT (Claude
// Code) and PLUGIN_ROOT (Codex) are p.Dir; CLAUDE_PLUGIN_DATA and PLUGIN_DATA are p.DataDir
// when it is set (otherwise absent, so ${CLAUDE_PLUGIN_DATA:-x} takes its default).
func (p *Plugin) Vars() map[string]string {
	v := map[string]string{"CLAUDE_PLUGIN_ROOT": p.Dir, "PLUGIN_ROOT": p.Dir}
	if p.DataDir != "" {
		v["CLAUDE_PLUGIN_DATA"] = p.DataDir
		v["PLUGIN_DATA"] = p.DataDir
	}
	return v
}

// Severity is how much a Diagnostic matters.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityDebug   Severity = "debug"
)

// Diagnostic is one problem found, naming its file (and line when known).
type Diagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"` // 0 when unknown
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String is "file:line: message", or "file: message" without a line.
func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", d.File, d.Line, d.Message)
	}
	return d.File + ": " + d.Message
}

// ErrNotFolder is wrapped by LoadPlugin's error for a path that is not a usable folder.
var ErrNotFolder = errors.New("not a plugin folder")

// LoadPlugin reads the plugin folder dir. Its error is for a dir that is not a usable folder
// (missing, not a folder, a symlink loop) and wraps ErrNotFolder; every problem of what the
// folder holds (its manifest, a path leaving it, an unreadable .mcp.json) is a Diagnostic of
// the Plugin, which always has a valid name.
func LoadPlugin(dir string) (*Plugin, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w: %v", dir, ErrNotFolder, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w: %v", abs, ErrNotFolder, linkError(err))
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w: %v", abs, ErrNotFolder, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("plugin %s: %w: it is a %s", abs, ErrNotFolder, regfile.Kind(info.Mode()))
	}
	p := &Plugin{Dir: real, Files: []string{real}}
	r := &reader{p: p}
	r.readManifest()
	r.defaults()
	p.Name = r.name()
	return p, nil
}

// linkError says a symlink loop in words.
func linkError(err error) error {
	if strings.Contains(err.Error(), "too many links") {
		return fmt.Errorf("a symlink loop: %w", err)
	}
	return err
}

// reader reads one plugin folder.
type reader struct {
	p         *Plugin
	lines     *positions
	data      []byte
	named     string // the manifest's name, when valid
	nameIsBad bool
}

func (r *reader) diag(sev Severity, key string, format string, a ...any) {
	file := r.p.Manifest
	if file == "" {
		file = r.p.Dir
	}
	line := 0
	if r.lines != nil && key != "" {
		line = r.lines.line(key)
	}
	msg := fmt.Sprintf(format, a...)
	if key != "" {
		msg = key + ": " + msg
	}
	r.p.Diagnostics = append(r.p.Diagnostics, Diagnostic{File: file, Line: line, Severity: sev, Message: msg})
}

// name is the plugin's name: the manifest's when valid, else the folder's, else the folder's
// made kebab-case.
func (r *reader) name() string {
	if r.named != "" {
		return r.named
	}
	base := filepath.Base(r.p.Dir)
	if ValidName(base) {
		return base
	}
	n := kebab(base)
	if r.p.Manifest == "" || r.nameIsBad {
		r.diag(SeverityWarning, "", "folder name %q is not a valid plugin name: named %q", base, n)
	}
	return n
}

// kebab makes s a valid plugin name: lower case, every run of other characters one '-'.
func kebab(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(c)
			if b.Len() >= MaxNameLength {
				break
			}
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "plugin"
	}
	return b.String()
}

// knownUnused are manifest keys agentpool understands and does not load: a debug diagnostic
// says so, they are not Unknown.
var knownUnused = map[string]string{
	"lspServers":   "agentpool runs no LSP servers",
	"outputStyles": "output styles are Claude Code's",
	"userConfig":   "agentpool does not prompt for plugin options",
	"channels":     "channels are Claude Code's",
	"settings":     "settings are Claude Code's",
	"apps":         "Codex apps (connectors) are Codex's",
	"$schema":      "",
	"dependencies": "agentpool does not install plugin dependencies",
}

func (r *reader) readManifest() {
	p := r.p
	for _, m := range []struct {
		rel    string
		format Format
	}{{ClaudeManifest, FormatClaude}, {CodexManifest, FormatCodex}} {
		path := filepath.Join(p.Dir, filepath.FromSlash(m.rel))
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		if p.Manifest != "" {
			r.diag(SeverityDebug, "", "%s is not read: the %s manifest is", path, p.Format)
			continue
		}
		// The manifest (or the folder holding it) may be a symlink: like every other file of
		// the plugin, it is read only when it stays inside the plugin folder.
		if real, err := filepath.EvalSymlinks(path); err != nil || !within(p.Dir, real) {
			msg := fmt.Sprintf("leaves the plugin folder through a symlink (to %s): not read", real)
			if err != nil {
				msg = fmt.Sprintf("not read: %v", linkError(err))
			}
			p.Diagnostics = append(p.Diagnostics, Diagnostic{File: path, Severity: SeverityError, Message: msg})
			continue
		}
		p.Manifest, p.Format = path, m.format
		p.Files = append(p.Files, path)
	}
	if p.Manifest == "" {
		return
	}
	data, err := r.readFile(p.Manifest)
	if err != nil {
		r.diag(SeverityError, "", "%v", err)
		return
	}
	r.data = data
	r.lines = newPositions(data)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		line := 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = lineAt(data, int(se.Offset))
		}
		msg := "want a JSON object"
		if err != nil {
			msg = "not JSON: " + err.Error()
		}
		if ute := (*json.UnmarshalTypeError)(nil); errors.As(err, &ute) {
			msg = "want a JSON object, got " + jsonKind(data)
		}
		p.Diagnostics = append(p.Diagnostics, Diagnostic{File: p.Manifest, Line: line, Severity: SeverityError, Message: msg})
		return
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r.field(k, top[k])
	}
	if _, ok := top["name"]; !ok {
		r.diag(SeverityError, "", "no name: the manifest must name the plugin (kebab-case)")
	}
}

// readFile reads a file of the plugin, regular and bounded.
func (r *reader) readFile(path string) ([]byte, error) {
	return regfile.ReadFile(path, MaxFileSize)
}

// field reads one manifest key.
func (r *reader) field(k string, v json.RawMessage) {
	p := r.p
	switch k {
	case "name":
		var s string
		if !r.str(k, v, &s) {
			r.nameIsBad = true
			return
		}
		if why := nameProblem(s); why != "" {
			r.nameIsBad = true
			r.diag(SeverityError, k, "%s", why)
			return
		}
		r.named = s
	case "version":
		r.str(k, v, &p.Version)
	case "description":
		r.str(k, v, &p.Description)
	case "homepage":
		r.str(k, v, &p.Homepage)
	case "license":
		r.str(k, v, &p.License)
	case "repository":
		var obj struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(v, &p.Repository) != nil {
			if json.Unmarshal(v, &obj) != nil || obj.URL == "" {
				r.diag(SeverityError, k, "want a string (or {\"url\": …}), got %s", jsonKind(v))
				return
			}
			p.Repository = obj.URL
		}
	case "author":
		var name string
		if json.Unmarshal(v, &name) == nil {
			p.Author = &Author{Name: name}
			return
		}
		var a struct{ Name, Email, URL string }
		if jsonKind(v) != "an object" || json.Unmarshal(v, &a) != nil {
			r.diag(SeverityError, k, "want an object {name, email, url} or a string, got %s", jsonKind(v))
			return
		}
		p.Author = &Author{Name: a.Name, Email: a.Email, URL: a.URL}
	case "keywords":
		if json.Unmarshal(v, &p.Keywords) != nil || jsonKind(v) != "a list" {
			p.Keywords = nil
			r.diag(SeverityError, k, "want a list of strings, got %s", jsonKind(v))
		}
	case "icons":
		var icons []struct {
			Src      string   `json:"src"`
			MIMEType string   `json:"mimeType"`
			Sizes    []string `json:"sizes"`
		}
		if json.Unmarshal(v, &icons) != nil || jsonKind(v) != "a list" {
			r.diag(SeverityError, k, "want a list of {src, mimeType, sizes}, got %s", jsonKind(v))
			return
		}
		for _, i := range icons {
			if i.Src != "" {
				p.Icons = append(p.Icons, Icon{Src: i.Src, MIMEType: i.MIMEType, Sizes: i.Sizes})
			}
		}
	case "interface":
		r.codexInterface(v)
	case "skills":
		p.SkillDirs = append(p.SkillDirs, r.paths(k, v)...)
	case "commands":
		p.CommandDirs = append(p.CommandDirs, r.paths(k, v)...)
	case "agents":
		for _, a := range r.paths(k, v) {
			p.Agents = append(p.Agents, listMarkdown(a)...)
		}
	case "hooks":
		if jsonKind(v) == "an object" {
			p.Hooks = append(p.Hooks, p.Manifest+"#hooks")
			return
		}
		p.Hooks = append(p.Hooks, r.paths(k, v)...)
	case "mcpServers":
		r.mcpServers(v)
	default:
		if why, ok := knownUnused[k]; ok {
			if why != "" {
				r.diag(SeverityDebug, k, "not loaded: %s", why)
			}
			return
		}
		p.Unknown = append(p.Unknown, k)
		r.diag(SeverityDebug, k, "unknown key, ignored")
	}
}

// str decodes a string value; a value of another kind is an error diagnostic.
func (r *reader) str(k string, v json.RawMessage, into *string) bool {
	if err := json.Unmarshal(v, into); err != nil || jsonKind(v) != "a string" {
		*into = ""
		r.diag(SeverityError, k, "want a string, got %s", jsonKind(v))
		return false
	}
	return true
}

// codexInterface reads Codex's presentation block: its icons, and what fills in for missing
// metadata (shortDescription, developerName, websiteURL).
func (r *reader) codexInterface(v json.RawMessage) {
	var in map[string]json.RawMessage
	if json.Unmarshal(v, &in) != nil || in == nil {
		r.diag(SeverityError, "interface", "want an object, got %s", jsonKind(v))
		return
	}
	get := func(k string) string {
		var s string
		if raw, ok := in[k]; ok && json.Unmarshal(raw, &s) != nil {
			r.diag(SeverityError, "interface", "%s: want a string, got %s", k, jsonKind(raw))
		}
		return s
	}
	for _, k := range []string{"composerIcon", "logo"} {
		if s := get(k); s != "" {
			r.p.Icons = append(r.p.Icons, Icon{Src: s})
		}
	}
	if s := get("shortDescription"); s != "" && r.p.Description == "" {
		r.p.Description = s
	}
	if s := get("developerName"); s != "" && r.p.Author == nil {
		r.p.Author = &Author{Name: s}
	}
	if s := get("websiteURL"); s != "" && r.p.Homepage == "" {
		r.p.Homepage = s
	}
}

// paths reads a value that is a path or a list of paths, each inside the plugin folder: those
// that are not, or do not exist, are diagnostics.
func (r *reader) paths(k string, v json.RawMessage) []string {
	var list []string
	var one string
	switch {
	case json.Unmarshal(v, &one) == nil && jsonKind(v) == "a string":
		list = []string{one}
	case json.Unmarshal(v, &list) == nil && jsonKind(v) == "a list":
	default:
		r.diag(SeverityError, k, "want a path or a list of paths, got %s", jsonKind(v))
		return nil
	}
	var out []string
	for _, rel := range list {
		if path, ok := r.inside(k, rel); ok {
			out = append(out, path)
		}
	}
	return out
}

// inside resolves rel against the plugin folder and returns it when it is inside the folder
// after resolving symlinks, and exists.
func (r *reader) inside(k, rel string) (string, bool) {
	if rel == "" || strings.ContainsRune(rel, 0) {
		r.diag(SeverityError, k, "an empty path")
		return "", false
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) {
		r.diag(SeverityError, k, "%q: an absolute path; paths are relative to the plugin folder (./…)", rel)
		return "", false
	}
	path := filepath.Join(r.p.Dir, filepath.FromSlash(rel))
	if !within(r.p.Dir, path) {
		r.diag(SeverityError, k, "%q leaves the plugin folder", rel)
		return "", false
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		r.diag(SeverityWarning, k, "%q does not exist", rel)
		return "", false
	}
	if err != nil {
		r.diag(SeverityError, k, "%q: %v", rel, linkError(err))
		return "", false
	}
	if !within(r.p.Dir, real) {
		r.diag(SeverityError, k, "%q leaves the plugin folder through a symlink (to %s)", rel, real)
		return "", false
	}
	return real, true
}

// within reports whether path is root or under it (both clean, absolute).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// mcpServers reads the manifest's mcpServers: a path, a list of paths, or an inline object.
func (r *reader) mcpServers(v json.RawMessage) {
	if jsonKind(v) == "an object" {
		// The manifest itself is the object holding mcpServers: handed over whole, its lines
		// and columns are those of the file a problem names (its other keys are not read).
		r.p.MCP = append(r.p.MCP, MCPSource{File: r.p.Manifest, Inline: true, Data: r.data})
		return
	}
	for _, path := range r.paths("mcpServers", v) {
		r.addMCPFile(path)
	}
}

// addMCPFile reads one .mcp.json (once, however often it is named).
func (r *reader) addMCPFile(path string) {
	for _, m := range r.p.MCP {
		if !m.Inline && m.File == path {
			return
		}
	}
	data, err := r.readFile(path)
	if err != nil {
		r.p.Diagnostics = append(r.p.Diagnostics, Diagnostic{File: path, Severity: SeverityError, Message: err.Error()})
		return
	}
	r.p.MCP = append(r.p.MCP, MCPSource{File: path, Data: data})
	r.p.Files = append(r.p.Files, path)
}

// defaults adds the components found in the standard layout, ahead of the manifest's own.
func (r *reader) defaults() {
	p := r.p
	dir := func(rel string) (string, bool) {
		path := filepath.Join(p.Dir, rel)
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", false
		}
		if !within(p.Dir, real) {
			r.diag(SeverityError, "", "%s leaves the plugin folder through a symlink (to %s): not read", path, real)
			return "", false
		}
		return real, true
	}
	isDir := func(path string) bool { info, err := os.Stat(path); return err == nil && info.IsDir() }
	if d, ok := dir("skills"); ok && isDir(d) {
		p.SkillDirs = prependNew(p.SkillDirs, d)
	}
	if d, ok := dir("commands"); ok && isDir(d) {
		p.CommandDirs = prependNew(p.CommandDirs, d)
	}
	if d, ok := dir("agents"); ok && isDir(d) {
		for _, a := range slices.Backward(listMarkdown(d)) {
			p.Agents = prependNew(p.Agents, a)
		}
	}
	if f, ok := dir(filepath.Join("hooks", "hooks.json")); ok {
		p.Hooks = prependNew(p.Hooks, f)
	}
	if f, ok := dir(".mcp.json"); ok {
		manifest := p.MCP
		p.MCP = nil
		r.addMCPFile(f)
		for _, m := range manifest {
			if m.Inline || m.File != f {
				p.MCP = append(p.MCP, m)
			}
		}
	}
}

// prependNew puts s first in list, unless list has it.
func prependNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append([]string{s}, list...)
}

// listMarkdown lists path when it is a file, or the .md files of the folder path, sorted.
func listMarkdown(path string) []string {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if !info.IsDir() {
		return []string{path}
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if len(out) == maxListed {
			break
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	return out
}

// jsonKind names the kind of a JSON value as its writer knows it.
func jsonKind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}
