package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/frontmatter"
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
	// MaxDepth is how deep below a root folders are scanned (a skill directly in the root is at
	// depth 1). Default DefaultMaxDepth.
	MaxDepth int
	// MaxFolders is how many folders are read per root before the scan of that root stops with
	// a warning. Default DefaultMaxFolders.
	MaxFolders int
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

// Discover scans roots, in precedence order, for skills: folders holding a SKILL.md. It reads
// each SKILL.md only up to the end of its frontmatter. Folders named node_modules or starting
// with "." are skipped; symlinked folders are followed, each real folder scanned once. When two
// skills share a name the earlier one (higher-precedence root, or first in the same root in
// lexical depth-first order) wins and the other is reported. A root that does not exist is
// skipped silently. Discover returns the winning skills in precedence order and every
// diagnostic, sorted by path and line.
func Discover(roots []string, opts *DiscoverOptions) ([]*Skill, []Diagnostic) {
	sc := scanner{opts: opts.withDefaults()}
	scans := make([]rootScan, len(roots))
	for i, r := range roots {
		scans[i] = sc.scanRoot(r)
	}
	skills, diags := resolve(scans)
	return skills, diags
}

// scanner runs discovery. prev and changed let a rescan reuse skills whose SKILL.md has not
// changed: prev maps SKILL.md paths to the skills of the previous scan, changed holds the paths
// the watcher reported, whose skills are always read again.
type scanner struct {
	opts    DiscoverOptions
	prev    map[string]*Skill
	changed map[string]bool
}

// candidate is a folder found holding a SKILL.md.
type candidate struct {
	root    string
	dir     string
	realDir string
	mcpJSON bool
	// linkedMD says SKILL.md is a symlink, whose target must be checked to be inside realDir.
	linkedMD bool
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

// scanRoot walks one root and loads its candidates, in parallel when there are many.
func (sc *scanner) scanRoot(root string) rootScan {
	w := walker{opts: sc.opts, visited: map[string]string{}}
	real := w.walkRoot(root)
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
	// Check the file before opening it: opening a named pipe blocks until a writer comes.
	if c.linkedMD {
		if err := checkInside(path, c.realDir); err != nil {
			return fail("%v; the skill is skipped", err)
		}
	}
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return fail("SKILL.md is not a regular file; the skill is skipped")
	}
	f, err := os.Open(path)
	if err != nil {
		return fail("cannot open SKILL.md: %v; the skill is skipped", unwrapPath(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fail("cannot stat SKILL.md: %v; the skill is skipped", unwrapPath(err))
	}
	if !info.Mode().IsRegular() {
		return fail("SKILL.md is not a regular file; the skill is skipped")
	}
	if c.linkedMD {
		// os.Open followed the symlink: make sure the file read is inside the skill folder (the
		// link may have changed since the check above).
		if err := checkInside(path, c.realDir); err != nil {
			return fail("%v; the skill is skipped", err)
		}
	}
	bufp := headPool.Get().(*[]byte)
	defer headPool.Put(bufp)
	head, complete, err := readHead(f, *bufp)
	if err != nil {
		return fail("cannot read SKILL.md: %v; the skill is skipped", unwrapPath(err))
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
	s.line = fm.Lines["name"]
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
	if err := checkInside(path, realDir); err != nil {
		return nil, warn("%v; its servers are ignored", err)
	}
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		// Not opened: opening a named pipe blocks until a writer comes.
		return nil, warn("mcp.json is not a regular file; its servers are ignored")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, warn("cannot open mcp.json: %v; its servers are ignored", unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMCPJSON+1))
	if err != nil {
		return nil, warn("cannot read mcp.json: %v; its servers are ignored", unwrapPath(err))
	}
	if len(data) > maxMCPJSON {
		return nil, warn("mcp.json is larger than %d KiB; its servers are ignored", maxMCPJSON>>10)
	}
	return parseMCPJSON(data, dir, path)
}

// checkInside reports an error when path, after resolving symlinks, is outside realDir.
func checkInside(path, realDir string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %v", filepath.Base(path), unwrapPath(err))
	}
	if !within(real, realDir) {
		return fmt.Errorf("%s resolves to %s, outside the skill folder %s", filepath.Base(path), real, realDir)
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

// walker finds candidates under roots.
type walker struct {
	opts    DiscoverOptions
	diags   []Diagnostic
	cands   []candidate
	visited map[string]string // real folder -> folder as first reached
}

func (w *walker) warn(path, format string, args ...any) {
	w.diags = append(w.diags, Diagnostic{Path: path, Severity: SeverityWarning, Message: fmt.Sprintf(format, args...)})
}

// walkRoot scans one root, which may itself be a skill folder, and returns its real path ("" when
// it cannot be scanned).
func (w *walker) walkRoot(root string) string {
	info, err := os.Stat(root)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.warn(root, "cannot read skill root: %v", unwrapPath(err))
		}
		return ""
	}
	if !info.IsDir() {
		w.warn(root, "skill root is not a folder; skipped")
		return ""
	}
	real, err := realPath(root)
	if err != nil {
		w.warn(root, "cannot resolve skill root: %v", unwrapPath(err))
		return ""
	}
	w.visited[real] = root
	folders := 0
	w.walkDir(root, root, real, 0, &folders)
	return real
}

// realPath resolves symlinks in p and makes it absolute.
func realPath(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// walkDir reads dir and descends. It returns false when the root's folder budget ran out.
func (w *walker) walkDir(root, dir, real string, depth int, folders *int) bool {
	*folders++
	if *folders > w.opts.MaxFolders {
		w.warn(root, "more than %d folders under this root; the scan stopped there (skills beyond were not loaded)", w.opts.MaxFolders)
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.warn(dir, "cannot read folder: %v; skipped", unwrapPath(err))
		return true
	}
	isSkill, linked, mcpJSON := false, false, false
	for _, e := range entries {
		switch e.Name() {
		case skillFile:
			linked = e.Type()&fs.ModeSymlink != 0
			isSkill = e.Type().IsRegular() || linked
		case mcpJSONFile:
			mcpJSON = true
		}
	}
	if isSkill {
		w.cands = append(w.cands, candidate{root: root, dir: dir, realDir: real, mcpJSON: mcpJSON, linkedMD: linked})
	}
	if depth >= w.opts.MaxDepth {
		return true
	}
	// Real folders first, then symlinked ones, so a link to a sibling folder is the one reported
	// as a second path to an already scanned folder.
	for pass := range 2 {
		for _, e := range entries {
			if !w.descend(root, dir, real, e, pass == 1, depth, folders) {
				return false
			}
		}
	}
	return true
}

// descend walks into entry e of dir when it is a folder to scan: real folders on the first pass,
// symlinked ones on the second. It returns false when the folder budget ran out.
func (w *walker) descend(root, dir, real string, e fs.DirEntry, links bool, depth int, folders *int) bool {
	name := e.Name()
	if name[0] == '.' || name == "node_modules" {
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
	}
	if first, seen := w.visited[childReal]; seen {
		w.warn(child, "folder %s was already scanned as %s (symlink cycle or second link); skipped", childReal, first)
		return true
	}
	w.visited[childReal] = child
	return w.walkDir(root, child, childReal, depth+1, folders)
}
