package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/frontmatter"
	"github.com/agentpool/agentpool/internal/regfile"
)

// Discovery defaults, from the client implementation guide's "reasonable bounds".
const (
	DefaultMaxDepth   = 6
	DefaultMaxFolders = 2000
)

// Read bounds at discovery: the first read takes headSize bytes; a frontmatter still open after
// maxHeadSize bytes is an error. Bodies are never read at discovery.
const (
	headSize     = 4 << 10
	maxHeadSize  = 64 << 10
	maxMCPJSON   = 1 << 20
	skillFile    = "SKILL.md"
	mcpJSONFile  = "mcp.json"
	parallelMinN = 32 // below this many candidates parsing stays on the calling goroutine
)

// DefaultRoots returns the conventional skill roots in precedence order: the project's
// .agents/skills and .claude/skills, then the user's ~/.agents/skills and ~/.claude/skills.
// An empty projectDir or homeDir leaves its pair out; a root listed twice (home == project) is
// kept once. Configured roots go before these: the caller prepends them.
func DefaultRoots(projectDir, homeDir string) []string {
	var out []string
	seen := map[string]bool{}
	for _, base := range []string{projectDir, homeDir} {
		if base == "" {
			continue
		}
		for _, client := range []string{".agents", ".claude"} {
			r := filepath.Join(base, client, "skills")
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// DiscoverOptions bounds a scan. The zero value means the defaults.
type DiscoverOptions struct {
	// MaxDepth is how deep below a root skills are loaded (a skill directly in the root is at
	// depth 1). Default DefaultMaxDepth. A skill found deeper is reported, not loaded.
	MaxDepth int
	// MaxFolders is how many folders are read per root before the scan of that root stops with
	// a warning. Default DefaultMaxFolders.
	MaxFolders int
	// DefaultRoots are scanned after the roots given to Discover, in order. Unlike those, a
	// default root that does not exist is skipped without a diagnostic: these are the
	// conventional places (DefaultRoots), which most users do not all have.
	DefaultRoots []string
	// Confine, when set, is a folder nothing outside of is read: a root or a symlinked folder
	// whose real path lies outside it is a warning naming the link and where it points, and is
	// not walked, even to a skill folder. Each folder is listed through an os.Root on it, so one
	// swapped for a link out after the check is not listed either. The host confines an
	// untrusted project's skill folders to the project.
	Confine string
}

func (o *DiscoverOptions) withDefaults() DiscoverOptions {
	var out DiscoverOptions
	if o != nil {
		out = *o
	}
	if out.MaxDepth <= 0 {
		out.MaxDepth = DefaultMaxDepth
	}
	if out.MaxFolders <= 0 {
		out.MaxFolders = DefaultMaxFolders
	}
	return out
}

// Discover scans roots, then opts.DefaultRoots, in precedence order, for skills: folders
// holding a SKILL.md. It reads each SKILL.md only up to the end of its frontmatter.
// Version-control folders (.git, .hg, .svn, .jj, .bzr), node_modules, .venv and __pycache__
// are skipped, other dot-folders are scanned; symlinked folders are followed, each real folder
// scanned once (with opts.Confine, only inside that folder). When two skills share a name the
// earlier one (higher-precedence root, or first in the same root in lexical depth-first order) wins and the other is reported. A root in roots that is "~" or
// starts with "~/" is taken from the home directory; one that does not exist is a warning.
// Every limit reached (depth, folder count) is a warning naming the path. Discover returns the
// winning skills in precedence order and every diagnostic, sorted by path and line.
func Discover(roots []string, opts *DiscoverOptions) ([]*Skill, []Diagnostic) {
	sc := scanner{opts: opts.withDefaults()}
	all := append(slices.Clone(roots), sc.opts.DefaultRoots...)
	scans := make([]rootScan, len(all))
	for i, r := range all {
		if i < len(roots) {
			scans[i] = sc.scanRoot(ExpandHome(r), false)
		} else {
			scans[i] = sc.scanRoot(r, true)
		}
	}
	skills, diags := resolve(scans)
	return skills, diags
}

// ExpandHome returns root with a leading "~" or "~/" replaced by the user's home directory
// (os.UserHomeDir). Anything else, "~user/x" included, is returned unchanged; so is root when
// the home directory is unknown (the root is then reported as missing, with a hint).
func ExpandHome(root string) string {
	if root != "~" && !strings.HasPrefix(root, "~/") && !strings.HasPrefix(root, "~"+string(filepath.Separator)) {
		return root
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return root
	}
	return filepath.Join(home, root[1:])
}

// skipped are the folder names discovery (and the watcher, and Validate) never enter: version
// control, and dependency or cache folders that hold no skills but may hold thousands of
// folders, which would use up a root's folder budget.
var skipped = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true, ".bzr": true,
	"node_modules": true, ".venv": true, "__pycache__": true,
}

// scanner runs discovery. prev and changed let a rescan reuse skills whose SKILL.md has not
// changed: prev maps SKILL.md paths to the skills of the previous scan, changed holds the paths
// the watcher reported, whose skills are always read again. ns is the namespace of the root
// being scanned: its skills are named "<ns>:<name>".
type scanner struct {
	opts    DiscoverOptions
	prev    map[string]*Skill
	changed map[string]bool
	ns      string
}

// candidate is a folder found holding a SKILL.md.
type candidate struct {
	root    string
	dir     string
	realDir string
	mcpJSON bool
}

func (c candidate) path() string { return filepath.Join(c.dir, skillFile) }

// rootScan is what one root holds: its real path ("" when it does not exist or is unusable),
// the walk's diagnostics and every candidate loaded, in lexical depth-first order.
type rootScan struct {
	root   string
	real   string
	diags  []Diagnostic
	loaded []loadResult
}

// scanRoot walks one root and loads its candidates, in parallel when there are many. A root
// that does not exist is a warning unless optional.
func (sc *scanner) scanRoot(root string, optional bool) rootScan {
	w := newWalker(sc.opts)
	real := w.walkRoot(root, optional)
	rs := rootScan{root: root, real: real, diags: w.diags, loaded: make([]loadResult, len(w.cands))}
	load := func(i int) { rs.loaded[i] = sc.load(w.cands[i]) }
	n := len(w.cands)
	if n < parallelMinN {
		for i := range n {
			load(i)
		}
		return rs
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 8) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				load(i)
			}
		})
	}
	wg.Wait()
	return rs
}

// resolve merges root scans in precedence order: the first skill of a name wins, every later
// one is reported naming both paths. A root that is the same folder as an earlier root is
// reported and left out. It returns the winners in precedence order and every diagnostic.
func resolve(scans []rootScan) (winners []*Skill, diags []Diagnostic) {
	byName := map[string]*Skill{}
	realRoots := map[string]string{}
	for _, rs := range scans {
		if rs.real != "" {
			if first, dup := realRoots[rs.real]; dup {
				diags = append(diags, Diagnostic{Path: rs.root, Severity: SeverityWarning,
					Message: fmt.Sprintf("skill root is the same folder as %s, which comes first; skipped", first)})
				continue
			}
			realRoots[rs.real] = rs.root
		}
		diags = append(diags, rs.diags...)
		for _, l := range rs.loaded {
			diags = append(diags, l.diags...)
			s := l.skill
			if s == nil {
				continue
			}
			win, dup := byName[s.Name]
			if !dup {
				byName[s.Name] = s
				winners = append(winners, s)
				continue
			}
			why := "its root " + win.Root + " comes first"
			switch {
			case win.realDir == s.realDir:
				why = "the same folder reached twice"
			case win.Root == s.Root:
				why = "found first in the same root"
			}
			diags = append(diags, Diagnostic{Path: s.Path, Line: s.line, Severity: SeverityWarning,
				Message: fmt.Sprintf("duplicate skill name %q: %s is shadowed by %s (%s)", s.Name, s.Path, win.Path, why)})
		}
	}
	sortDiagnostics(diags)
	return winners, diags
}

// loadResult is one candidate after reading.
type loadResult struct {
	skill *Skill
	diags []Diagnostic
}

// load reads one candidate's SKILL.md head (and mcp.json), reusing the previous scan's skill
// when neither changed.
func (sc *scanner) load(c candidate) loadResult {
	path := c.path()
	if old := sc.reusable(c, path); old != nil {
		return loadResult{skill: old, diags: old.diags}
	}
	fail := func(format string, args ...any) loadResult {
		return loadResult{diags: []Diagnostic{{Path: path, Severity: SeverityError, Rule: RuleSkillFile,
			Message: fmt.Sprintf(format, args...)}}}
	}
	bufp := headPool.Get().(*[]byte)
	defer headPool.Put(bufp)
	head, complete, info, err := readSkillHead(path, c.realDir, *bufp)
	if err != nil {
		return fail("%v; the skill is skipped", err)
	}
	fm, fs := parseHead(head, complete, false)
	var s *Skill
	if fm != nil {
		var more []finding
		s, more = interpret(fm, path)
		fs = append(fs, more...)
	}
	diags := lenientDiagnostics(path, fs)
	if s == nil {
		return loadResult{diags: diags}
	}
	s.Root, s.realDir, s.info, s.body = c.root, c.realDir, info, &bodyCache{}
	if sc.ns != "" {
		s.Namespace, s.Name = sc.ns, sc.ns+nsSep+s.Name
	}
	s.line = fm.Lines["name"]
	if s.AlwaysActive && s.DisableModelInvocation {
		line := fm.Lines["always-active"]
		if line == 0 {
			line = fm.Lines["always_active"]
		}
		diags = append(diags, Diagnostic{Path: path, Line: line, Severity: SeverityWarning,
			Message: "always-active has no effect with disable-model-invocation: the skill is never given to the model"})
	}
	if c.mcpJSON {
		jpath := filepath.Join(c.dir, mcpJSONFile)
		servers, jfs := readMCPJSON(jpath, c.dir, c.realDir)
		var mfs []finding
		s.Servers, mfs = mergeServers(s.Servers, servers)
		diags = append(diags, lenientDiagnostics(jpath, append(jfs, mfs...))...)
	}
	s.diags = diags
	return loadResult{skill: s, diags: diags}
}

// reusable returns the previous scan's skill for c when its SKILL.md is the same file with the
// same size and modification time and the watcher reported nothing about it.
func (sc *scanner) reusable(c candidate, path string) *Skill {
	old := sc.prev[path]
	if old == nil || old.Root != c.root || old.realDir != c.realDir || old.info == nil {
		return nil
	}
	for _, p := range []string{path, c.dir, filepath.Join(c.dir, mcpJSONFile),
		filepath.Join(c.realDir, skillFile), c.realDir, filepath.Join(c.realDir, mcpJSONFile)} {
		if sc.changed[p] {
			return nil
		}
	}
	info, err := os.Stat(path)
	if err != nil || !os.SameFile(info, old.info) || info.Size() != old.info.Size() || !info.ModTime().Equal(old.info.ModTime()) {
		return nil
	}
	return old
}

// readSkillHead reads a SKILL.md as discovery does, for discovery and Validate alike: a
// regular file only (a named pipe or a device is refused without blocking, checked on the
// opened descriptor), inside realDir whether or not the walk saw a symlink (openInside: it may
// have been swapped for one since), read into buf up to the end of its frontmatter. The error, for a diagnostic, does not repeat the path.
func readSkillHead(path, realDir string, buf []byte) (head []byte, complete bool, info os.FileInfo, err error) {
	f, err := openInside(path, realDir)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, false, nil, fmt.Errorf("SKILL.md %v", unwrapPath(err))
	}
	if isOutside(err) {
		return nil, false, nil, err
	}
	if err != nil {
		return nil, false, nil, fmt.Errorf("cannot open SKILL.md: %v", unwrapPath(err))
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, false, nil, fmt.Errorf("cannot stat SKILL.md: %v", unwrapPath(err))
	}
	if head, complete, err = readHead(f, buf); err != nil {
		return nil, false, nil, fmt.Errorf("cannot read SKILL.md: %v", unwrapPath(err))
	}
	return head, complete, info, nil
}

// outsideError is the refusal of a file leading outside its skill folder. It names the file
// and the skill folder, not where the file leads.
type outsideError struct{ name, realDir string }

func (e *outsideError) Error() string {
	return e.name + " is a symlink leading outside the skill folder " + e.realDir + "; not read"
}

// isOutside reports an *outsideError.
func isOutside(err error) bool {
	var o *outsideError
	return errors.As(err, &o)
}

// openInsideHook, when set by a test, runs between openInside's check and its open.
var openInsideHook func()

// openInside opens path, a file of the skill folder realDir, as a regular file (regfile.OpenIn)
// that cannot be outside realDir: path is resolved and checked to be inside (the error,
// an *outsideError, does not say where it leads), then opened through an os.Root on
// realDir, so a symlink swapped in or re-pointed between the check and the open cannot lead
// out either. The refusal is an *outsideError.
func openInside(path, realDir string) (*os.File, error) {
	if err := checkInside(path, realDir); err != nil {
		return nil, err
	}
	real, err := realPath(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(realDir, real)
	if err != nil {
		return nil, err
	}
	if openInsideHook != nil {
		openInsideHook()
	}
	r, err := os.OpenRoot(realDir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := regfile.OpenIn(r, rel)
	if err != nil && strings.Contains(unwrapPath(err).Error(), "escapes from parent") {
		return nil, &outsideError{filepath.Base(path), realDir}
	}
	return f, err
}

var headPool = sync.Pool{New: func() any { b := make([]byte, maxHeadSize); return &b }}

// readHead reads f into buf until the frontmatter's closing line is in it, the file ends, or
// buf is full. complete reports that the whole file was read.
func readHead(f *os.File, buf []byte) (head []byte, complete bool, err error) {
	n := 0
	want := headSize
	for {
		m, err := io.ReadFull(f, buf[n:want])
		n += m
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return buf[:n], true, nil
		}
		if err != nil {
			return nil, false, err
		}
		if b := frontmatter.Split(buf[:n]); !b.Opened || b.Closed {
			return buf[:n], false, nil
		}
		if want == len(buf) {
			return buf[:n], false, nil
		}
		want = min(want*4, len(buf))
	}
}

// readMCPJSON reads a companion mcp.json, confined to the skill folder.
func readMCPJSON(path, dir, realDir string) ([]ServerDecl, []finding) {
	warn := func(format string, args ...any) []finding {
		return []finding{{lenient: SeverityWarning, msg: fmt.Sprintf(format, args...)}}
	}
	f, err := openInside(path, realDir)
	var data []byte
	if err == nil {
		data, err = regfile.Read(f, maxMCPJSON)
		f.Close()
	}
	switch {
	case isOutside(err):
		return nil, warn("%v; its servers are ignored", err)
	case errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge):
		return nil, warn("mcp.json %v; its servers are ignored", unwrapPath(err))
	case err != nil:
		return nil, warn("cannot read mcp.json: %v; its servers are ignored", unwrapPath(err))
	}
	return parseMCPJSON(data, dir, path)
}

// checkInside reports an error when path, after resolving symlinks, is outside realDir. The
// error does not say where the link leads: a path outside the skill (under /etc, in the
// user's home) is none of a diagnostic's business, and diagnostics reach MCP clients.
func checkInside(path, realDir string) error {
	real, err := realPath(path) // absolute: realDir is, and path may be relative ("SKILL.md")
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %v", filepath.Base(path), unwrapPath(err))
	}
	if !within(real, realDir) {
		return &outsideError{filepath.Base(path), realDir}
	}
	return nil
}

// within reports whether p is dir or inside it (both clean and absolute).
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir) && len(p) > len(dir) && (p[len(dir)] == filepath.Separator || dir == string(filepath.Separator))
}

// unwrapPath drops the path from an *fs.PathError, since diagnostics already name the file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// walker finds the candidates under one root, applying the rules discovery and Validate share:
// which folders are skipped, how deep skills load, how many folders are read.
type walker struct {
	opts     DiscoverOptions
	confine  string // opts.Confine with symlinks resolved; "" when not confined
	root     string
	rootReal string // root with symlinks resolved
	diags    []Diagnostic
	lost     []Diagnostic // the diagnostics that mean a skill (or possibly some) did not load
	cands    []candidate
	visited  map[string]string // real folder -> folder as first reached
	folders  int               // folders read so far
	// deep are the folders at MaxDepth that have subfolders: once the root is scanned to
	// MaxDepth, they are searched, with what is left of the folder budget, for skills too deep
	// to load, so that each one is reported rather than dropped without a word.
	deep    []deepFolder
	probing bool // searching deep folders: a SKILL.md found is reported, not loaded
}

type deepFolder struct {
	dir, real, skillReal string
	entries              []fs.DirEntry
}

func newWalker(opts DiscoverOptions) *walker {
	w := &walker{opts: opts, visited: map[string]string{}}
	if opts.Confine != "" {
		// A confining folder that cannot be resolved confines to itself as written: what lies
		// under it still can be read, nothing else.
		w.confine = filepath.Clean(opts.Confine)
		if real, err := realPath(opts.Confine); err == nil {
			w.confine = real
		}
	}
	return w
}

// outside reports whether the real path real lies outside the confining folder, and why, for
// the diagnostic on link: the link's target as written in it, which is the confined folder's
// own content, not the machine's.
func (w *walker) outside(link, real string) (string, bool) {
	if w.confine == "" || within(real, w.confine) {
		return "", false
	}
	if target, err := os.Readlink(link); err == nil {
		return fmt.Sprintf("symbolic link to %s leads outside %s; not read", target, w.confine), true
	}
	return fmt.Sprintf("lies outside %s; not read", w.confine), true
}

func (w *walker) warn(path, format string, args ...any) {
	w.diags = append(w.diags, Diagnostic{Path: path, Severity: SeverityWarning, Message: fmt.Sprintf(format, args...)})
}

// lose is warn for a problem that keeps skills from loading; Validate reports these too.
func (w *walker) lose(path, format string, args ...any) {
	w.warn(path, format, args...)
	w.lost = append(w.lost, w.diags[len(w.diags)-1])
}

// walkRoot scans one root, which may itself be a skill folder, and returns its real path ("" when
// it cannot be scanned). A root that does not exist is reported unless optional.
func (w *walker) walkRoot(root string, optional bool) string {
	w.root = root
	info, err := os.Stat(root)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.lose(root, "cannot read skill root: %v", unwrapPath(err))
		} else if !optional {
			hint := ""
			if strings.Contains(root, "~") {
				hint = ` ("~" is taken as the home directory only at the start of a path, as "~/skills")`
			}
			w.lose(root, "skill root does not exist%s; no skills loaded from it", hint)
		}
		return ""
	}
	if !info.IsDir() {
		w.lose(root, "skill root is not a folder; skipped")
		return ""
	}
	real, err := realPath(root)
	if err != nil {
		w.lose(root, "cannot resolve skill root: %v", unwrapPath(err))
		return ""
	}
	if why, out := w.outside(root, real); out {
		w.lose(root, "skill root: %s", why)
		return ""
	}
	w.visited[real] = root
	w.rootReal = real
	if !w.walkDir(root, real, 0, "") {
		return real
	}
	w.probing = true
	for _, d := range w.deep {
		if !w.descendAll(d.dir, d.real, d.entries, w.opts.MaxDepth, d.skillReal) {
			break
		}
	}
	return real
}

// holdsSkillFile reports whether folder dir holds an entry named SKILL.md that is not a folder.
func holdsSkillFile(dir string) bool {
	info, err := os.Lstat(filepath.Join(dir, skillFile))
	return err == nil && !info.IsDir()
}

// realPath resolves symlinks in p and makes it absolute.
func realPath(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// readDirHook, when set by a test, runs before walker.readDir lists a folder (its real path).
var readDirHook func(real string)

// readDir lists the folder dir, whose real path is real, sorted by name. Confined, it lists
// real through an os.Root on the confining folder: a folder swapped for a link out of it since
// real was checked is refused, not listed.
func (w *walker) readDir(dir, real string) ([]fs.DirEntry, error) {
	if readDirHook != nil {
		readDirHook(real)
	}
	if w.confine == "" {
		return os.ReadDir(dir)
	}
	rel, err := filepath.Rel(w.confine, real)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(w.confine)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// walkDir reads dir and descends. skillReal is the real folder of the skill dir is in ("" when
// in none): nothing inside a skill is walked outside it. It returns false when the root's
// folder budget ran out.
func (w *walker) walkDir(dir, real string, depth int, skillReal string) bool {
	w.folders++
	if w.folders > w.opts.MaxFolders {
		if w.probing {
			w.warn(w.root, "more than %d folders under this root: the search for skills deeper than %d levels stopped at %s",
				w.opts.MaxFolders, w.opts.MaxDepth, dir)
		} else {
			w.lose(w.root, "more than %d folders under this root; the scan stopped at %s (skills beyond were not loaded)",
				w.opts.MaxFolders, dir)
		}
		return false
	}
	entries, err := w.readDir(dir, real)
	if err != nil {
		w.lose(dir, "cannot read folder: %v; skipped", unwrapPath(err))
		return true
	}
	isSkill, mcpJSON := false, false
	for _, e := range entries {
		switch e.Name() {
		case skillFile:
			// Anything but a folder: a named pipe or a device is refused when read, with a
			// diagnostic, rather than leaving the folder silently not a skill.
			isSkill = !e.IsDir()
		case mcpJSONFile:
			mcpJSON = true
		}
	}
	switch {
	case isSkill && depth > w.opts.MaxDepth:
		w.lose(filepath.Join(dir, skillFile), "skill folder is %d levels below its root %s, deeper than the limit of %d; not loaded",
			depth, w.root, w.opts.MaxDepth)
	case isSkill:
		w.cands = append(w.cands, candidate{root: w.root, dir: dir, realDir: real, mcpJSON: mcpJSON})
	}
	if isSkill {
		skillReal = real
	}
	if depth == w.opts.MaxDepth && !w.probing {
		if slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Type()&(fs.ModeDir|fs.ModeSymlink) != 0 }) {
			w.deep = append(w.deep, deepFolder{dir: dir, real: real, skillReal: skillReal, entries: entries})
		}
		return true
	}
	return w.descendAll(dir, real, entries, depth, skillReal)
}

// descendAll walks into the subfolders of dir: real folders first, then symlinked ones, so a
// link to a sibling folder is the one reported as a second path to an already scanned folder.
// It returns false when the folder budget ran out.
func (w *walker) descendAll(dir, real string, entries []fs.DirEntry, depth int, skillReal string) bool {
	for pass := range 2 {
		for _, e := range entries {
			if !w.descend(dir, real, e, pass == 1, depth, skillReal) {
				return false
			}
		}
	}
	return true
}

// descend walks into entry e of dir when it is a folder to scan: real folders on the first pass,
// symlinked ones on the second. A symlinked folder is followed only where it stays: inside the
// skill folder when dir is in a skill (skillReal), else inside the root, or to a skill folder
// (one holding a SKILL.md, the usual way to install a skill). Otherwise the link is reported
// once, without where it leads, and not walked. It returns false when the folder budget ran
// out.
func (w *walker) descend(dir, real string, e fs.DirEntry, links bool, depth int, skillReal string) bool {
	name := e.Name()
	if skipped[name] {
		return true
	}
	t := e.Type()
	if (t&fs.ModeSymlink != 0) != links || !t.IsDir() && t&fs.ModeSymlink == 0 {
		return true
	}
	child := filepath.Join(dir, name)
	childReal := filepath.Join(real, name)
	if t&fs.ModeSymlink != 0 {
		info, err := os.Stat(child)
		if err != nil {
			w.warn(child, "broken symlink: %v; skipped", unwrapPath(err))
			return true
		}
		if !info.IsDir() {
			return true
		}
		if childReal, err = realPath(child); err != nil {
			w.warn(child, "cannot resolve symlink: %v; skipped", unwrapPath(err))
			return true
		}
		if why, out := w.outside(child, childReal); out {
			w.warn(child, "%s", why)
			return true
		}
		switch {
		case skillReal != "" && !within(childReal, skillReal):
			w.warn(child, "symlink leads outside its skill folder; not followed (a skill's files stay in its folder)")
			return true
		case skillReal == "" && !within(childReal, w.rootReal) && !holdsSkillFile(childReal):
			w.warn(child, "symlink leads outside the skill root to a folder without a SKILL.md; not followed (to scan that folder, add it as a skill root)")
			return true
		}
	}
	if first, seen := w.visited[childReal]; seen {
		w.warn(child, "folder already scanned as %s (symlink cycle or second link); skipped", first)
		return true
	}
	w.visited[childReal] = child
	return w.walkDir(child, childReal, depth+1, skillReal)
}
