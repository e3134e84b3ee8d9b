package skill

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/fswatch"
)

// DefaultName is the capability name of a Manager when Options.Name is empty.
const DefaultName = "skills"

// DefaultDebounce is how long the watcher waits after the last file event before rescanning.
const DefaultDebounce = 500 * time.Millisecond

// Options configures a Manager. A nil *Options means the defaults; NewManager copies it.
type Options struct {
	// Name is the capability name; empty means DefaultName ("skills").
	Name string
	// Roots are the configured folders to scan, highest precedence first. A root that is "~" or
	// starts with "~/" is taken from the home directory (ExpandHome); relative roots are made
	// absolute at NewManager. A root that does not exist is a warning diagnostic (and is
	// watched, so that skills put there later load).
	Roots []string
	// DefaultRoots are scanned after Roots: the conventional places (see the function
	// DefaultRoots). One that does not exist is skipped without a diagnostic.
	DefaultRoots []string
	// NamespacedRoots are scanned after DefaultRoots, in order; each one's skills are named
	// "<Namespace>:<name>" (a plugin's skills, as Claude Code and Codex name them). One that
	// does not exist is skipped without a diagnostic (a plugin without skills is normal). A
	// namespace that is not kebab-case (ValidNamespace) makes NewManager fail.
	NamespacedRoots []NamespacedRoot
	// Watch keeps the skills up to date with the files: changes are picked up after Debounce.
	Watch bool
	// Debounce is the quiet time after the last file event before a rescan; zero means
	// DefaultDebounce.
	Debounce time.Duration
	// MaxFolders and MaxDepth bound the scan of each root (see DiscoverOptions).
	MaxFolders int
	MaxDepth   int
	// Confine, when set, is a folder the scan never reads outside of (DiscoverOptions.Confine),
	// and the watcher (Watch) watches nothing outside of.
	Confine string
	// Logger receives problems that are not diagnostics (a child failing, a rescan error).
	// Nil discards them.
	Logger *slog.Logger
	// CatalogueBudget bounds the catalogue of Instructions.Static, in characters (Unicode
	// code points): past it, skills are left out as Instructions says. Zero means no limit;
	// negative is taken as zero. The config's skills.catalogue_budget gives
	// DefaultCatalogueBudget when unset (Config.Budget).
	CatalogueBudget int
	// Matcher picks, for a turn's prompt, the names of the skills whose full content goes into
	// that turn's dynamic instructions. Nil selects none beyond the always-active skills.
	Matcher func(prompt string, skills []ext.SkillEntry) []string
	// Children builds a capability for one MCP server a skill declares. It must not do I/O (it
	// is called lazily, when the skill's tools are first needed) and is called at most once per
	// declaration and skill version. Nil keeps the declarations without children.
	// Nil leaves the servers to each session: see Manager.NewServers.
	Children ChildFactory
}

// Manager is the RFC's SkillManagerCap: the skills found under its roots as one capability. It
// serves their files as skill:// resources, their catalogue and always-active content as
// instructions, a load_skill tool, the tools of the skills' own MCP servers, and the skills as
// slash commands; with Options.Watch it follows the files and emits change events.
//
// A Manager is safe for concurrent use. Close is idempotent; after it, every method taking a
// context returns an error wrapping ext.ErrClosed.
type Manager struct {
	ext.Notifier

	name       string
	opts       Options
	roots      []string // Roots, DefaultRoots, then the NamespacedRoots' folders, absolute
	namespaces []string // the namespace of each of roots ("" for Roots and DefaultRoots)
	configured int      // how many of roots are Roots, whose absence is reported
	log        *slog.Logger

	state atomic.Pointer[state]

	scanMu sync.Mutex // serialises scans; guards scans
	scans  []rootScan

	kids *children // the servers built through Options.Children

	sessMu   sync.Mutex
	sessions map[*children]struct{} // the servers of each open Servers (NewServers)

	watcher   *fswatch.Watcher
	closed    atomic.Bool
	closeOnce sync.Once
	closeDone chan struct{} // closed when the first Close has finished; closeErr is set then
	closeErr  error
}

// Interface guards: the contracts the registry finds by type assertion.
var (
	_ ext.Capability         = (*Manager)(nil)
	_ ext.SkillResource      = (*Manager)(nil)
	_ ext.CommandResource    = (*Manager)(nil)
	_ ext.ChangeObservable   = (*Manager)(nil)
	_ ext.Composite          = (*Manager)(nil)
	_ ext.TurnInstructor     = (*Manager)(nil)
	_ ext.ToolProvider       = (*Manager)(nil)
	_ ext.Instructor         = (*Manager)(nil)
	_ ext.Completer          = (*Manager)(nil)
	_ ext.ResourceSubscriber = (*Manager)(nil)
)

// state is one immutable view of the skills.
type state struct {
	skills []*Skill // winners, sorted by name
	byName map[string]*Skill
	diags  []Diagnostic
}

// NewManager scans the roots and, with Options.Watch, starts watching them. Problems in skills
// are diagnostics, not errors: NewManager fails only on an invalid namespace or when the
// watcher cannot start.
func NewManager(opts *Options) (*Manager, error) {
	m := &Manager{closeDone: make(chan struct{})}
	if opts != nil {
		m.opts = *opts
	}
	m.name = m.opts.Name
	if m.name == "" {
		m.name = DefaultName
	}
	m.log = m.opts.Logger
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.opts.Debounce <= 0 {
		m.opts.Debounce = DefaultDebounce
	}
	m.opts.CatalogueBudget = max(m.opts.CatalogueBudget, 0)
	for i, r := range slices.Concat(m.opts.Roots, m.opts.DefaultRoots) {
		if i < len(m.opts.Roots) {
			r = ExpandHome(r)
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("skill manager: root %q: %w", r, err)
		}
		m.roots = append(m.roots, abs)
	}
	m.configured = len(m.opts.Roots)
	m.opts.Roots, m.opts.DefaultRoots = slices.Clone(m.roots[:m.configured]), slices.Clone(m.roots[m.configured:])
	m.namespaces = make([]string, len(m.roots))
	if err := m.addNamespacedRoots(); err != nil {
		return nil, err
	}
	m.kids = newChildren(m, m.name, m.opts.Children, m.Emit)
	m.scanMu.Lock()
	defer m.scanMu.Unlock()
	if m.opts.Watch {
		// Watch before the first scan, so a change made while it runs is not missed: the
		// watcher's rescan waits for scanMu.
		if err := m.startWatch(); err != nil {
			return nil, err
		}
	}
	m.scanAll(nil)
	return m, nil
}

// Name returns the capability name (Options.Name, default "skills").
func (m *Manager) Name() string { return m.name }

// Roots returns the roots scanned, absolute, highest precedence first: Options.Roots (with "~"
// expanded), then Options.DefaultRoots, then the folders of Options.NamespacedRoots, so that
// Roots()[:len(Options.Roots)] are the configured ones.
func (m *Manager) Roots() []string { return slices.Clone(m.roots) }

// NamespacedRoots returns Options.NamespacedRoots with each folder absolute.
func (m *Manager) NamespacedRoots() []NamespacedRoot { return slices.Clone(m.opts.NamespacedRoots) }

// Skills returns the skills now loaded, sorted by name. The skills are shared snapshots: do
// not modify them.
func (m *Manager) Skills() []*Skill { return slices.Clone(m.state.Load().skills) }

// Skill returns the skill of that name, or nil. A namespaced skill is found by its Name
// ("<ns>:<name>") and by its SafeName ("<ns>.<name>", the name Options.Children is given).
func (m *Manager) Skill(name string) *Skill {
	byName := m.state.Load().byName
	if s := byName[name]; s != nil || !strings.Contains(name, nsSafeSep) {
		return s
	}
	return byName[strings.Replace(name, nsSafeSep, nsSep, 1)]
}

// Diagnostics returns every problem found in the last scan, sorted by path and line, plus any
// failure to create a skill's MCP server.
func (m *Manager) Diagnostics() []Diagnostic {
	out := slices.Clone(m.state.Load().diags)
	seen := map[Diagnostic]bool{} // every session reports the same failures
	for _, k := range m.childSets() {
		for _, d := range k.diagnostics() {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	sortDiagnostics(out)
	return out
}

// Reload rescans every root now, without waiting for the watcher, and emits the change events
// the rescan implies. Skills whose SKILL.md has the same size and modification time are reused.
func (m *Manager) Reload(ctx context.Context) error {
	if err := m.check(ctx); err != nil {
		return err
	}
	m.scanMu.Lock()
	defer m.scanMu.Unlock()
	m.scanAll(nil)
	return nil
}

// check reports ErrClosed after Close, or the context's error.
func (m *Manager) check(ctx context.Context) error {
	if m.closed.Load() {
		return fmt.Errorf("skill manager %q: %w", m.name, ext.ErrClosed)
	}
	return ctx.Err()
}

// scanAll rescans the roots for which rescan(root) is true (every root when rescan is nil),
// reusing the previous results for the others, publishes the new state and emits events.
// changed are the paths the watcher reported. The caller holds scanMu.
func (m *Manager) scanAll(changed []string) {
	ch := make(map[string]bool, len(changed))
	for _, p := range changed {
		ch[filepath.Clean(p)] = true
	}
	sc := scanner{opts: DiscoverOptions{MaxDepth: m.opts.MaxDepth, MaxFolders: m.opts.MaxFolders, Confine: m.opts.Confine}.withDefaultsValue(), changed: ch}
	old := m.state.Load()
	scans := make([]rootScan, len(m.roots))
	for i, root := range m.roots {
		if m.scans != nil && changed != nil && !touches(root, changed) {
			scans[i] = m.scans[i]
			continue
		}
		sc.prev, sc.ns = nil, m.namespaces[i]
		if m.scans != nil {
			sc.prev = map[string]*Skill{}
			for _, l := range m.scans[i].loaded {
				if l.skill != nil {
					sc.prev[l.skill.Path] = l.skill
				}
			}
		}
		scans[i] = sc.scanRoot(root, i >= m.configured)
	}
	m.scans = scans
	winners, diags := resolve(scans)
	st := &state{byName: make(map[string]*Skill, len(winners)), diags: diags}
	for _, s := range winners {
		st.byName[s.Name] = s
	}
	st.skills = slices.Clone(winners)
	sort.Slice(st.skills, func(i, j int) bool { return st.skills[i].Name < st.skills[j].Name })
	if hidden := hiddenFiles(st.byName, st.skills); len(hidden) > 0 {
		st.diags = append(st.diags, hidden...)
		sortDiagnostics(st.diags)
	}
	m.state.Store(st)
	for _, k := range m.childSets() {
		k.routes.Store(nil)
	}
	if old != nil {
		m.emitChanges(old, st, changed)
	}
}

// touches reports whether a changed path lies in root, or is root or one of its ancestors (a
// root created, removed or renamed).
func touches(root string, changed []string) bool {
	for _, p := range changed {
		p = filepath.Clean(p)
		if within(p, root) || within(root, p) {
			return true
		}
	}
	return false
}

// withDefaultsValue is withDefaults for a value.
func (o DiscoverOptions) withDefaultsValue() DiscoverOptions { return (&o).withDefaults() }

// Close stops the watcher and closes the skills' MCP server capabilities. It is idempotent and
// safe for concurrent use; it returns the first close error (or the context's error when the
// children did not close in time). A Close that finds another at work waits for it until its
// own ctx ends, and then returns ctx's error.
func (m *Manager) Close(ctx context.Context) error {
	first := false
	m.closeOnce.Do(func() {
		first = true
		m.closed.Store(true)
	})
	if !first {
		select {
		case <-m.closeDone:
			return m.closeErr
		case <-ctx.Done():
			return fmt.Errorf("skill manager %q: close: %w", m.name, ctx.Err())
		}
	}
	var errs []error
	if m.watcher != nil {
		if err := m.watcher.Close(); err != nil {
			errs = append(errs, fmt.Errorf("skill manager %q: stop watcher: %w", m.name, err))
		}
	}
	if err := m.kids.closeAll(ctx); err != nil {
		errs = append(errs, err)
	}
	m.closeErr = errors.Join(errs...)
	close(m.closeDone)
	return m.closeErr
}
