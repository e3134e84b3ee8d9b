package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentpool/agentpool/internal/regfile"
)

// The marketplace files' places in a marketplace folder, in the order they are looked for.
const (
	ClaudeMarketplace = ".claude-plugin/marketplace.json"
	CodexMarketplace  = ".agents/plugins/marketplace.json"
)

// Entry is one plugin a marketplace lists, whether or not it was loaded.
type Entry struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	// Marketplace is the marketplace's name.
	Marketplace string `json:"marketplace"`
	// Dir is the resolved local folder; "" for a git, url or npm source.
	Dir string `json:"dir,omitempty"`
	// Source is the source as written, for display ("./plugins/x", "github:owner/repo", a
	// git URL).
	Source string `json:"source"`
	// Fetch is, for a source not on disk, the command that would fetch it; "" otherwise.
	Fetch   string `json:"fetch,omitempty"`
	Enabled bool   `json:"enabled"`
	// Loaded reports that a Plugin of Catalog.Plugins came from it.
	Loaded bool `json:"loaded"`
	// File is the marketplace file that lists it.
	File string `json:"file"`
}

// Marketplace is one marketplace file, read.
type Marketplace struct {
	// Name is the marketplace's name (its folder's when the file names none validly).
	Name string
	// File is the marketplace file; Root the folder its local sources are relative to and
	// must stay inside (the folder holding .claude-plugin/ or .agents/), symlinks resolved.
	File, Root  string
	Format      Format
	Entries     []Entry
	Diagnostics []Diagnostic
}

// MarketplaceFiles returns the marketplace files of path: path itself when it is a file,
// else those of the folder that exist (Claude Code's, then Codex's), in order. None is an
// error naming path.
func MarketplaceFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("marketplace %s: %v", path, linkError(err))
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var out []string
	for _, rel := range []string{ClaudeMarketplace, CodexMarketplace} {
		f := filepath.Join(path, filepath.FromSlash(rel))
		if _, err := os.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("marketplace %s: neither %s nor %s in it", path, ClaudeMarketplace, CodexMarketplace)
	}
	return out, nil
}

// ReadMarketplace reads the marketplace file at path. It never fails as a whole: every
// problem (the file unreadable, not JSON, an entry without a valid name, a local source
// leaving the marketplace folder) is a Diagnostic naming the file, and the good entries stay.
func ReadMarketplace(path string) *Marketplace {
	m := &Marketplace{File: path}
	abs, err := filepath.Abs(path)
	if err == nil {
		m.File = abs
	}
	dir := filepath.Dir(m.File)
	m.Root, m.Format = dir, FormatNone
	switch {
	case filepath.Base(dir) == ".claude-plugin":
		m.Root, m.Format = filepath.Dir(dir), FormatClaude
	case filepath.Base(dir) == "plugins" && filepath.Base(filepath.Dir(dir)) == ".agents":
		m.Root, m.Format = filepath.Dir(filepath.Dir(dir)), FormatCodex
	}
	if real, err := filepath.EvalSymlinks(m.Root); err == nil {
		m.Root = real
	}
	m.Name = kebab(filepath.Base(m.Root))
	diag := func(line int, format string, a ...any) {
		m.Diagnostics = append(m.Diagnostics, Diagnostic{File: m.File, Line: line, Severity: SeverityError, Message: fmt.Sprintf(format, a...)})
	}
	data, err := readRegular(m.File)
	if err != nil {
		diag(0, "%v", err)
		return m
	}
	var doc struct {
		Name     json.RawMessage   `json:"name"`
		Metadata json.RawMessage   `json:"metadata"`
		Plugins  []json.RawMessage `json:"plugins"`
	}
	pos := newPositions(data)
	if err := json.Unmarshal(data, &doc); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = lineAt(data, int(se.Offset))
			diag(line, "not JSON: %v", err)
		case errors.As(err, &te) && te.Field == "plugins":
			diag(pos.line("plugins"), "plugins: want a list of plugin entries, got %s", jsonKind(rawField(data, "plugins")))
		default:
			diag(0, "want a JSON object with name and plugins, got %s", jsonKind(data))
		}
		return m
	}
	var name string
	if json.Unmarshal(doc.Name, &name) == nil && name != "" {
		if why := nameProblem(name); why == "" {
			m.Name = name
		} else {
			diag(pos.line("name"), "name: %s: named %q", why, m.Name)
		}
	} else {
		diag(pos.line("name"), "name: want the marketplace's name (a string), got %s: named %q", jsonKind(doc.Name), m.Name)
	}
	var meta struct {
		PluginRoot string `json:"pluginRoot"`
	}
	if len(doc.Metadata) > 0 && json.Unmarshal(doc.Metadata, &meta) != nil {
		diag(pos.line("metadata"), "metadata: want an object, got %s", jsonKind(doc.Metadata))
	}
	seen := map[string]int{}
	for i, raw := range doc.Plugins {
		at := fmt.Sprintf("plugins[%d]", i)
		e, msg := m.entry(raw, meta.PluginRoot)
		if msg != "" {
			diag(pos.line(at), "%s: %s", at, msg)
		}
		if e == nil {
			continue
		}
		if first, ok := seen[e.Name]; ok {
			diag(pos.line(at), "%s: %q is listed already, by plugins[%d]: not used", at, e.Name, first)
			continue
		}
		seen[e.Name] = i
		m.Entries = append(m.Entries, *e)
	}
	return m
}

// rawField returns the raw value of key in the JSON object data, or nil.
func rawField(data []byte, key string) json.RawMessage {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(data, &obj)
	return obj[key]
}

// entry reads one plugin entry; a problem is said in msg, with e nil when the entry is unusable
// and set when only its source is (the entry is then listed with no folder).
func (m *Marketplace) entry(raw json.RawMessage, pluginRoot string) (e *Entry, msg string) {
	var fields struct {
		Name        json.RawMessage `json:"name"`
		Source      json.RawMessage `json:"source"`
		Description any             `json:"description"`
		Version     any             `json:"version"`
	}
	if jsonKind(raw) != "an object" || json.Unmarshal(raw, &fields) != nil {
		return nil, "want an object {name, source, …}, got " + jsonKind(raw)
	}
	var name string
	if json.Unmarshal(fields.Name, &name) != nil {
		return nil, "name: want a string, got " + jsonKind(fields.Name)
	}
	if why := nameProblem(name); why != "" {
		return nil, "name: " + why
	}
	e = &Entry{Name: name, Marketplace: m.Name, File: m.File}
	e.Description, _ = fields.Description.(string)
	e.Version, _ = fields.Version.(string)
	var path string
	switch jsonKind(fields.Source) {
	case "a string":
		_ = json.Unmarshal(fields.Source, &path)
		e.Source = path
		// A bare name (not "./x", not "../x") is under metadata.pluginRoot (Claude Code).
		if pluginRoot != "" && !strings.HasPrefix(path, ".") && !filepath.IsAbs(path) {
			path = pluginRoot + "/" + path
		}
	case "an object":
		var src struct {
			Source, Path, Repo, URL, Ref, Sha, Package string
		}
		if json.Unmarshal(fields.Source, &src) != nil {
			return e, "source: want {source: …} with string values"
		}
		switch src.Source {
		case "local", "":
			path, e.Source = src.Path, src.Path
			if path == "" {
				return e, "source: a local source needs a path"
			}
		case "github":
			if src.Repo == "" {
				return e, "source: a github source needs repo (owner/name)"
			}
			e.Source = "github:" + src.Repo
			e.Fetch = m.fetch(name, "https://github.com/"+src.Repo+".git", src.Ref)
		case "url", "git":
			if src.URL == "" {
				return e, "source: a url source needs url"
			}
			e.Source = src.URL
			e.Fetch = m.fetch(name, src.URL, src.Ref)
		case "git-subdir":
			e.Source = src.URL + "#" + src.Path
			e.Fetch = m.fetch(name, src.URL, src.Ref)
		case "npm":
			e.Source = "npm:" + src.Package
			e.Fetch = m.fetch(name, "", "")
		default:
			return e, fmt.Sprintf("source: unknown source kind %q (want a path, local, github, url, git-subdir or npm)", src.Source)
		}
	default:
		return e, "source: want a path or an object {source: …}, got " + jsonKind(fields.Source)
	}
	if path == "" {
		return e, ""
	}
	dir, msg := m.local(path)
	e.Dir = dir
	return e, msg
}

// fetch is the command that would fetch a plugin not on disk: the tool's own install command
// for a Claude Code marketplace, else a git clone. The marketplace file writes url and ref,
// and a user may paste the command into a shell: each is quoted for it, and a url that would
// read as an option follows "--".
func (m *Marketplace) fetch(name, url, ref string) string {
	if m.Format == FormatClaude || url == "" {
		return "claude plugin install " + name + "@" + m.Name
	}
	cmd := "git clone"
	if ref != "" {
		cmd += " --branch " + shellQuote(ref)
	}
	if strings.HasPrefix(url, "-") {
		cmd += " --"
	}
	return cmd + " " + shellQuote(url)
}

// shellQuote returns s as one word of a POSIX shell: as it is when it holds only characters
// no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./_-", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// local resolves a local source against the marketplace root: it must stay inside it after
// resolving symlinks and be a folder.
func (m *Marketplace) local(rel string) (string, string) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || strings.ContainsRune(rel, 0) {
		return "", fmt.Sprintf("source: %q: an absolute path; a local source is relative to the marketplace folder %s", rel, m.Root)
	}
	path := filepath.Join(m.Root, filepath.FromSlash(rel))
	if !within(m.Root, path) {
		return "", fmt.Sprintf("source: %q leaves the marketplace folder %s", rel, m.Root)
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Sprintf("source: %q: no such folder", rel)
	}
	if err != nil {
		return "", fmt.Sprintf("source: %q: %v", rel, linkError(err))
	}
	if !within(m.Root, real) {
		return "", fmt.Sprintf("source: %q leaves the marketplace folder %s through a symlink (to %s)", rel, m.Root, real)
	}
	return real, ""
}

// readRegular reads a regular file of at most MaxFileSize.
func readRegular(path string) ([]byte, error) {
	return regfile.ReadFile(path, MaxFileSize)
}
