package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/fswatch"
	"github.com/agentpool/agentpool/internal/regfile"
)

// Interface guards: a FileSource is a capability with commands and change notifications.
var (
	_ ext.Capability       = (*FileSource)(nil)
	_ ext.CommandResource  = (*FileSource)(nil)
	_ ext.ChangeObservable = (*FileSource)(nil)
)

// SourceFile is the CommandEntry.Source of commands read from files, and the prefix of their
// qualified names ("file:review").
const SourceFile = "file"

const (
	defaultMaxDepth = 6
	// defaultMaxFolders bounds the folders read below one root, as skill discovery's
	// DefaultMaxFolders does: a link to a big tree (all -> /) must not walk it whole.
	defaultMaxFolders = 2000
	metaReadLimit     = 64 << 10 // bytes read at discovery: enough for any sane frontmatter
	bodyReadLimit     = 4 << 20  // a command file larger than this is refused on GetCommand
)

// FileOptions configures a FileSource. A nil *FileOptions means the defaults; NewFileSource
// copies it.
type FileOptions struct {
	// Name is the capability name. Empty means "commands".
	Name string
	// Watch enables hot reload: the roots are watched with fswatch and a commands_changed event is
	// emitted when the commands or any command file change.
	Watch bool
	// Debounce is the watcher's debounce (see fswatch.Options). Zero means fswatch's default.
	Debounce time.Duration
	// MaxDepth is how many directory levels below a root are scanned. Zero means 6.
	MaxDepth int
	// Logger receives problems that are not diagnostics of a file (a watch that failed).
	Logger *slog.Logger
	// Namespace, when set, puts every command of the source under it: configure.md is
	// "<ns>:configure", git/commit.md "<ns>:git:commit", and the bare names are not commands of
	// this source. It is how a plugin's commands are named (Claude Code and Codex call them
	// "plugin:name"). It must be lower-case kebab-case (^[a-z0-9]([a-z0-9-]*[a-z0-9])?$).
	Namespace string
	// Confine, when set, is a folder the source never reads outside of: a root, folder or
	// command file whose real path (symlinks resolved) lies outside it is not read, and is a
	// warning naming the link and where it points. What is read is opened through an os.Root
	// on it, so a link swapped in after the check cannot lead out either; with Watch, no folder
	// outside it is watched. The host confines an
	// untrusted project's command folders to the project.
	Confine string
}

// FileCommand is one command read from a file, with the frontmatter fields that CommandEntry has
// no place for.
type FileCommand struct {
	Entry ext.CommandEntry
	// AllowedTools is the allowed-tools frontmatter; nil when absent.
	AllowedTools []string
	// Model is the model frontmatter; empty when absent.
	Model string
	// Root is the command root the file was found in.
	Root string
}

type stamp struct {
	size int64
	mod  time.Time
}

type fileCommand struct {
	FileCommand
	stamp stamp
}

type cachedBody struct {
	stamp stamp
	body  string
}

// FileSource serves command files (every **/*.md below its roots) as a capability: no tools, no
// instructions, only commands. Roots are given in precedence order; when two roots hold the same
// command name the earlier root wins and the other file is reported in Diagnostics.
//
// A command's name is its path relative to its root without ".md", directories joined by ":"
// (frontend/component.md is "frontend:component"), after "<ns>:" with FileOptions.Namespace;
// its QualifiedName is "file:" + name. A file
// whose name has whitespace or a control character ("has space.md") is not loaded, since no
// slash command line could name it; Diagnostics says so.
// Metadata is read when the roots are scanned; the body is read by GetCommand and cached until the
// file changes. All methods are safe for concurrent use.
type FileSource struct {
	ext.Notifier

	name  string
	roots []string
	opts  FileOptions
	log   *slog.Logger

	scanMu sync.Mutex // serialises scans

	mu          sync.RWMutex
	byName      map[string]*fileCommand
	entries     []ext.CommandEntry // sorted by name
	diags       []Diagnostic
	fingerprint string
	scanned     bool
	closed      bool

	cacheMu sync.Mutex
	cache   map[string]cachedBody // by path

	watcher   *fswatch.Watcher
	closeOnce sync.Once
	closeErr  error
}

// DefaultRoots returns the conventional command roots in precedence order: the project's
// .claude/commands and .agents/commands, then the user's ~/.claude/commands and
// ~/.agents/commands. An empty projectDir or homeDir leaves its roots out; a root listed twice
// (the project is the home directory) is kept once. Configured roots go before these.
func DefaultRoots(projectDir, homeDir string) []string {
	var roots []string
	add := func(base string) {
		if base == "" {
			return
		}
		for _, d := range []string{".claude", ".agents"} {
			r := filepath.Join(base, d, "commands")
			if !slices.Contains(roots, r) {
				roots = append(roots, r)
			}
		}
	}
	add(projectDir)
	add(homeDir)
	return roots
}

// NewFileSource scans roots (in precedence order) and, with opts.Watch, starts watching them.
// Roots that do not exist are fine (and watched for); problems in files become Diagnostics, never
// errors. An error is returned only for an invalid FileOptions.Namespace or when the watcher
// cannot start.
func NewFileSource(roots []string, opts *FileOptions) (*FileSource, error) {
	var o FileOptions
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "commands"
	}
	if o.Namespace != "" {
		if err := validNamespace(o.Namespace); err != nil {
			return nil, fmt.Errorf("command source %q: %w", o.Name, err)
		}
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = defaultMaxDepth
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &FileSource{
		name:   o.Name,
		opts:   o,
		log:    o.Logger,
		byName: make(map[string]*fileCommand),
		cache:  make(map[string]cachedBody),
	}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("command root %q: %w", r, err)
		}
		if !slices.Contains(s.roots, abs) {
			s.roots = append(s.roots, abs)
		}
	}
	if o.Watch {
		// Watch before the first scan, so nothing changed in between is missed.
		var watchable []string
		for _, r := range s.roots {
			if fi, err := os.Stat(r); err == nil && !fi.IsDir() {
				continue // reported by the scan
			}
			watchable = append(watchable, r)
		}
		w, err := fswatch.New(watchable, &fswatch.Options{
			Debounce: o.Debounce,
			MaxDepth: o.MaxDepth,
			Logger:   o.Logger,
			MaxDirs:  defaultMaxFolders, // no more than the scan reads
			Skip:     watchSkip(o.Confine),
		}, func([]string) { s.rescan() })
		if err != nil {
			return nil, fmt.Errorf("command source %q: watch: %w", o.Name, err)
		}
		s.watcher = w
	}
	s.rescan()
	return s, nil
}

// Name returns the capability name (FileOptions.Name).
func (s *FileSource) Name() string { return s.name }

// Roots returns the command roots, absolute, in precedence order.
func (s *FileSource) Roots() []string { return slices.Clone(s.roots) }

// Close stops the watcher. It is idempotent and safe without prior use; afterwards ListCommands
// and GetCommand fail with ext.ErrClosed. It must not be called from an Observe callback (which
// runs on the watcher's goroutine).
func (s *FileSource) Close(context.Context) error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		if s.watcher != nil {
			s.closeErr = s.watcher.Close()
		}
	})
	return s.closeErr
}

// ListCommands returns the commands, sorted by name.
func (s *FileSource) ListCommands(ctx context.Context) ([]ext.CommandEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, fmt.Errorf("command source %q: %w", s.name, ext.ErrClosed)
	}
	return slices.Clone(s.entries), nil
}

// Command returns the command called name (plain or qualified) with all its frontmatter.
func (s *FileSource) Command(name string) (FileCommand, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.lookup(name)
	if c == nil {
		return FileCommand{}, false
	}
	fc := c.FileCommand
	fc.AllowedTools = slices.Clone(fc.AllowedTools)
	return fc, true
}

func (s *FileSource) lookup(name string) *fileCommand {
	if c, ok := s.byName[name]; ok {
		return c
	}
	if plain, ok := strings.CutPrefix(name, SourceFile+":"); ok {
		return s.byName[plain]
	}
	return nil
}

// GetCommand reads the command's body (cached until the file changes) and expands it with the
// request's arguments: a command file is always a template (cmdline.ExpandTemplate), so
// placeholders are substituted outside fenced code, and a body without any gets the arguments
// appended. The result is one user message. The name may be plain or
// qualified ("file:review"); without positional Args, Named["arguments"] is split shell-style.
// An unknown command is ext.ErrNotFound.
func (s *FileSource) GetCommand(ctx context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := req.Name
	s.mu.RLock()
	closed := s.closed
	c := s.lookup(name)
	s.mu.RUnlock()
	if closed {
		return nil, fmt.Errorf("command source %q: %w", s.name, ext.ErrClosed)
	}
	args, err := requestArgs(req)
	if err != nil {
		return nil, fmt.Errorf("command source %q: command %q: %w", s.name, name, err)
	}
	if c == nil {
		return nil, fmt.Errorf("command source %q: command %q: %w", s.name, name, ext.ErrNotFound)
	}
	body, err := s.body(c.Entry.Path)
	if err != nil {
		return nil, fmt.Errorf("command source %q: command %q: %w", s.name, name, err)
	}
	out := ext.UserPrompt(cmdline.ExpandTemplate(body, args))
	out.Description = c.Entry.Description
	return out, nil
}

// requestArgs returns the positional arguments of req: Args, or Named["arguments"] split
// shell-style (how a command reached as an MCP prompt receives its line).
func requestArgs(req *ext.CommandRequest) ([]string, error) {
	if req.Args != nil || req.Named["arguments"] == "" {
		return req.Args, nil
	}
	return cmdline.Split(req.Named["arguments"])
}

// body returns the parsed body of the file at path, from the cache when the file is unchanged.
func (s *FileSource) body(path string) (string, error) {
	fsys, err := newScanFS(s.opts.Confine)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	defer fsys.Close()
	at, err := fsys.resolve(path)
	var fi fs.FileInfo
	if err == nil {
		fi, err = fsys.stat(at)
	}
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("read %s: %w", path, ext.ErrNotFound)
		}
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	st := stamp{size: fi.Size(), mod: fi.ModTime()}
	s.cacheMu.Lock()
	cached, ok := s.cache[path]
	s.cacheMu.Unlock()
	if ok && cached.stamp == st {
		return cached.body, nil
	}
	// A named pipe would block the read, a device (a link to /dev/zero) never end it: only a
	// regular file is opened, checked on the descriptor, and read up to bodyReadLimit.
	f, err := fsys.open(at)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	st = stamp{size: fi.Size(), mod: fi.ModTime()}
	src, err := regfile.Read(f, bodyReadLimit)
	if err != nil {
		return "", fmt.Errorf("read %s: a command file is %w", path, unwrapPath(err))
	}
	body := parseFile(src).body
	s.cacheMu.Lock()
	s.cache[path] = cachedBody{stamp: st, body: body}
	s.cacheMu.Unlock()
	return body, nil
}

// Diagnostics returns the problems found by the last scan, sorted by path and line.
func (s *FileSource) Diagnostics() []Diagnostic {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.diags)
}

// Reload rescans the roots now, emitting commands_changed when something changed. It is what the
// watcher does on each change; call it when Watch is off. After Close it fails with
// ext.ErrClosed.
func (s *FileSource) Reload(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return fmt.Errorf("command source %q: %w", s.name, ext.ErrClosed)
	}
	s.rescan()
	return nil
}

// rescan scans every root, swaps the result in, and emits commands_changed if it differs.
func (s *FileSource) rescan() {
	s.scanMu.Lock()
	defer s.scanMu.Unlock()

	byName := make(map[string]*fileCommand)
	var diags []Diagnostic
	fsys, err := newScanFS(s.opts.Confine)
	if err != nil {
		diags = append(diags, Diagnostic{Path: s.opts.Confine, Severity: SeverityError,
			Message: fmt.Sprintf("cannot open the folder command files are read in: %v; no command read", unwrapPath(err))})
		fsys = &scanFS{dir: s.opts.Confine} // confined, with nothing to read
	}
	defer fsys.Close()
	for _, root := range s.roots {
		if fsys.dir != "" && fsys.root == nil {
			break
		}
		cmds, ds := scanRoot(fsys, root, s.opts.MaxDepth, defaultMaxFolders)
		diags = append(diags, ds...)
		for _, c := range cmds {
			qualify(c, s.opts.Namespace)
			if prev, ok := byName[c.Entry.Name]; ok {
				where := "a higher-precedence root"
				if prev.Root == c.Root {
					where = "the same root"
				}
				diags = append(diags, Diagnostic{Path: c.Entry.Path, Severity: SeverityWarning,
					Message: fmt.Sprintf("command %q is shadowed by %s in %s", c.Entry.Name, prev.Entry.Path, where)})
				continue
			}
			byName[c.Entry.Name] = c
		}
	}
	entries := make([]ext.CommandEntry, 0, len(byName))
	var fp strings.Builder
	for _, c := range byName {
		entries = append(entries, c.Entry)
	}
	slices.SortFunc(entries, func(a, b ext.CommandEntry) int { return strings.Compare(a.Name, b.Name) })
	for _, e := range entries {
		c := byName[e.Name]
		fmt.Fprintf(&fp, "%s\x00%s\x00%d\x00%d\n", e.Name, e.Path, c.stamp.size, c.stamp.mod.UnixNano())
	}
	slices.SortStableFunc(diags, func(a, b Diagnostic) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return a.Line - b.Line
	})

	s.mu.Lock()
	changed := fp.String() != s.fingerprint
	first := !s.scanned
	s.scanned = true
	s.byName, s.entries, s.diags, s.fingerprint = byName, entries, diags, fp.String()
	if s.diags == nil {
		s.diags = []Diagnostic{}
	}
	closed := s.closed
	s.mu.Unlock()

	s.cacheMu.Lock()
	for p := range s.cache {
		if !slices.ContainsFunc(entries, func(e ext.CommandEntry) bool { return e.Path == p }) {
			delete(s.cache, p)
		}
	}
	s.cacheMu.Unlock()

	if changed && !first && !closed {
		s.Emit(ext.ChangeEvent{Capability: s.name, Kind: ext.CommandsChanged})
	}
}

// scanRoot finds every command file below root, following symlinked directories (not into a
// cycle) and skipping dot-folders and node_modules, to maxDepth directory levels, reading at
// most maxFolders folders (the root included): past that the scan stops with one warning.
// It reads through fsys: confined, a link out of its folder is a warning, not followed.
func scanRoot(fsys *scanFS, root string, maxDepth, maxFolders int) ([]*fileCommand, []Diagnostic) {
	at, err := fsys.resolve(root)
	var fi fs.FileInfo
	if err == nil {
		fi, err = fsys.stat(at)
	}
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		if isOutside(err) {
			return nil, []Diagnostic{{Path: root, Severity: SeverityWarning, Message: "command root: " + err.Error()}}
		}
		return nil, []Diagnostic{{Path: root, Severity: SeverityError, Message: fmt.Sprintf("cannot read command root: %v", err)}}
	}
	if !fi.IsDir() {
		return nil, []Diagnostic{{Path: root, Severity: SeverityError, Message: "command root is not a directory"}}
	}
	var (
		cmds  []*fileCommand
		diags []Diagnostic
	)
	folders := 0
	// dir is the folder as named below root; at is where it is read (fsys.resolve).
	var walk func(dir, at string, rel []string, ancestors []fs.FileInfo)
	walk = func(dir, at string, rel []string, ancestors []fs.FileInfo) {
		if folders++; folders > maxFolders {
			if folders == maxFolders+1 {
				diags = append(diags, Diagnostic{Path: root, Severity: SeverityWarning,
					Message: fmt.Sprintf("more than %d folders under this root; the scan stopped at %s (commands beyond were not loaded)", maxFolders, dir)})
			}
			return
		}
		ents, err := fsys.readDir(at)
		if err != nil {
			diags = append(diags, Diagnostic{Path: dir, Severity: SeverityError, Message: fmt.Sprintf("cannot list directory: %v", err)})
			return
		}
		for _, e := range ents {
			nm := e.Name()
			if strings.HasPrefix(nm, ".") {
				continue // dot-folders, and dot-files such as editor lock files
			}
			p, pat := filepath.Join(dir, nm), filepath.Join(at, nm)
			var err error
			if e.Type()&fs.ModeSymlink != 0 {
				if pat, err = fsys.resolve(pat); isOutside(err) {
					diags = append(diags, Diagnostic{Path: p, Severity: SeverityWarning, Message: err.Error()})
					continue
				}
			}
			var sub fs.FileInfo
			if err == nil {
				sub, err = fsys.stat(pat) // follows symlinks
			}
			if err != nil {
				if e.Type()&fs.ModeSymlink != 0 && strings.EqualFold(filepath.Ext(nm), ".md") {
					diags = append(diags, Diagnostic{Path: p, Severity: SeverityWarning, Message: "dangling symbolic link"})
				}
				continue
			}
			if sub.IsDir() {
				if nm == "node_modules" || len(rel)+1 > maxDepth {
					continue
				}
				if slices.ContainsFunc(ancestors, func(a fs.FileInfo) bool { return os.SameFile(a, sub) }) {
					diags = append(diags, Diagnostic{Path: p, Severity: SeverityWarning, Message: "symbolic link cycle; not followed"})
					continue
				}
				walk(p, pat, append(slices.Clone(rel), nm), append(slices.Clone(ancestors), sub))
				continue
			}
			if !sub.Mode().IsRegular() || !strings.EqualFold(filepath.Ext(nm), ".md") {
				continue
			}
			c, ds := readCommand(fsys, root, p, pat, append(slices.Clone(rel), strings.TrimSuffix(nm, filepath.Ext(nm))), sub)
			diags = append(diags, ds...)
			if c != nil {
				cmds = append(cmds, c)
			}
		}
	}
	walk(root, at, nil, []fs.FileInfo{fi})
	return cmds, diags
}

// readCommand reads a command file's metadata (its first metaReadLimit bytes), the file at path
// read through fsys at at. A file whose name (any path segment) has whitespace or a control
// character is refused: nil, with an error diagnostic.
func readCommand(fsys *scanFS, root, path, at string, parts []string, fi fs.FileInfo) (*fileCommand, []Diagnostic) {
	name := strings.Join(parts, ":")
	c := &fileCommand{
		FileCommand: FileCommand{
			Entry: ext.CommandEntry{Name: name, QualifiedName: SourceFile + ":" + name, Source: SourceFile, Path: path},
			Root:  root,
		},
		stamp: stamp{size: fi.Size(), mod: fi.ModTime()},
	}
	var diags []Diagnostic
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		// A slash command line splits at whitespace, so /has space could be listed but never
		// run: the file is refused here rather than offered as a command nobody can type.
		return nil, []Diagnostic{{Path: path, Severity: SeverityError,
			Message: fmt.Sprintf("command name %q contains whitespace or a control character and cannot be typed as a slash command; not loaded (rename the file)", name)}}
	}
	// The scan stat'ed a regular file; what is opened is checked again on its descriptor (a
	// named pipe swapped in would block the scan).
	f, err := fsys.open(at)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, append(diags, Diagnostic{Path: path, Severity: SeverityError, Message: fmt.Sprintf("not loaded: %v", unwrapPath(err))})
	}
	if err != nil {
		return c, append(diags, Diagnostic{Path: path, Severity: SeverityError, Message: fmt.Sprintf("cannot read: %v", err)})
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, metaReadLimit))
	if err != nil {
		return c, append(diags, Diagnostic{Path: path, Severity: SeverityError, Message: fmt.Sprintf("cannot read: %v", err)})
	}
	p := parseFile(src)
	for _, d := range p.diags {
		d.Path = path
		diags = append(diags, d)
	}
	c.Entry.Description = p.Description
	c.Entry.ArgumentHint = p.ArgumentHint
	c.AllowedTools = p.AllowedTools
	c.Model = p.Model
	return c, diags
}

// unwrapPath drops the path from an *fs.PathError, for messages that name the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
