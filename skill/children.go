package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// childCloseTimeout bounds the close of a child replaced or removed by a rescan (Manager.Close
// uses the caller's context instead).
const childCloseTimeout = 5 * time.Second

// ChildFactory builds a capability for one MCP server a skill declares (Options.Children,
// Manager.NewServers). It must not do I/O: it is called lazily, when the skill's tools are first
// needed, at most once per declaration and skill version.
type ChildFactory func(ctx context.Context, skill string, decl ServerDecl) (ext.Capability, error)

// children owns the capabilities built for the skills' MCP servers by one factory (the
// manager's own, or one session's): created lazily, kept per skill while its declarations stay
// the same, closed when the skill goes away or changes its declarations, and at Close.
type children struct {
	m       *Manager // the catalogue the skills come from
	owner   string   // the capability the tools are listed by, named in events and errors
	factory ChildFactory
	emit    func(ext.ChangeEvent)      // the owner's events (a child's tools_changed)
	routes  atomic.Pointer[routeTable] // child tool routes from the last listing
	blocked sync.Map                   // "<skill>\x00<server>\x00<tool>" left out for hidden text and logged

	mu     sync.Mutex
	sets   map[string]*childSet // by skill name
	closed bool
}

// childSet is the children of one skill version.
type childSet struct {
	fingerprint string
	kids        []*child
	failures    []Diagnostic
}

// child is one created capability and its declaration.
type child struct {
	skill string
	decl  ServerDecl
	cap   ext.Capability
	stop  func() // stops observing the child's changes
}

func newChildren(m *Manager, owner string, factory ChildFactory, emit func(ext.ChangeEvent)) *children {
	return &children{m: m, owner: owner, factory: factory, emit: emit, sets: map[string]*childSet{}}
}

// fingerprint identifies a skill's declarations: children are rebuilt only when it changes.
func fingerprint(s *Skill) string {
	b, _ := json.Marshal(s.Servers)
	return string(b)
}

// forSkill returns the children of s, creating them on first use. A declaration the factory
// rejects is skipped and recorded as a diagnostic; the other children still work.
func (c *children) forSkill(ctx context.Context, s *Skill) []*child {
	factory := c.factory
	if factory == nil || len(s.Servers) == 0 {
		return nil
	}
	fp := fingerprint(s)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	// s may come from a state that a rescan has since replaced and pruned (scanAll publishes the
	// new state before pruning under c.mu): children built for a skill gone or redeclared would
	// run until the next rescan.
	if cur := c.m.state.Load().byName[s.Name]; cur == nil || fingerprint(cur) != fp {
		c.mu.Unlock()
		return nil
	}
	old, ok := c.sets[s.Name]
	if ok && old.fingerprint == fp {
		c.mu.Unlock()
		return old.kids
	}
	// The skill's servers changed and no rescan pruned the old ones yet: they are closed below,
	// once the lock is released.
	delete(c.sets, s.Name)
	set := &childSet{fingerprint: fp}
	for _, d := range s.Servers {
		cp, err := c.create(ctx, factory, s.SafeName(), d)
		if err != nil {
			set.failures = append(set.failures, Diagnostic{Path: d.Source, Line: d.Line, Severity: SeverityError,
				Message: fmt.Sprintf("skill %q: MCP server %q: %v; the skill works without it", s.Name, d.Name, err)})
			c.m.log.Warn("skill MCP server not created", "skill", s.Name, "server", d.Name, "err", err)
			continue
		}
		k := &child{skill: s.Name, decl: d, cap: cp, stop: func() {}}
		if obs, ok := cp.(ext.ChangeObservable); ok {
			k.stop = obs.Observe(func(ev ext.ChangeEvent) {
				if ev.Kind == ext.ToolsChanged {
					c.emit(ext.ChangeEvent{Capability: c.owner, Kind: ext.ToolsChanged})
				}
			})
		}
		set.kids = append(set.kids, k)
	}
	c.sets[s.Name] = set
	c.mu.Unlock()
	if ok {
		closeSet(old, c.m.log)
	}
	return set.kids
}

// create calls the factory, turning a panic in it into an error.
func (c *children) create(ctx context.Context, factory ChildFactory, skill string, d ServerDecl) (cp ext.Capability, err error) {
	defer func() {
		if r := recover(); r != nil {
			cp, err = nil, fmt.Errorf("factory panicked: %v", r)
		}
	}()
	cp, err = factory(ctx, skill, d)
	if err == nil && cp == nil {
		err = errors.New("factory returned no capability")
	}
	return cp, err
}

// all returns every child created so far, ordered by skill and server name.
func (c *children) all() []*child {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.sets))
	for n := range c.sets {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*child
	for _, n := range names {
		out = append(out, c.sets[n].kids...)
	}
	return out
}

// diagnostics returns the factory failures of the current children.
func (c *children) diagnostics() []Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Diagnostic
	for _, set := range c.sets {
		out = append(out, set.failures...)
	}
	return out
}

// prune closes the children of skills that are gone or whose declarations changed. It reports
// whether any child was closed.
func (c *children) prune(st *state) bool {
	c.mu.Lock()
	var drop []*childSet
	for name, set := range c.sets {
		s := st.byName[name]
		if s == nil || fingerprint(s) != set.fingerprint {
			drop = append(drop, set)
			delete(c.sets, name)
		}
	}
	c.mu.Unlock()
	closed := false
	for _, set := range drop {
		closed = closed || len(set.kids) > 0
		closeSet(set, c.m.log)
	}
	return closed
}

// closeSet closes the children of one skill, each bounded by childCloseTimeout.
func closeSet(set *childSet, log interface {
	Warn(msg string, args ...any)
}) {
	for _, k := range set.kids {
		k.stop()
		ctx, cancel := context.WithTimeout(context.Background(), childCloseTimeout)
		if err := k.cap.Close(ctx); err != nil {
			log.Warn("close skill MCP server", "skill", k.skill, "server", k.decl.Name, "err", err)
		}
		cancel()
	}
}

// closeAll closes every child with ctx; later forSkill calls create nothing.
func (c *children) closeAll(ctx context.Context) error {
	c.mu.Lock()
	c.closed = true
	sets := c.sets
	c.sets = map[string]*childSet{}
	c.mu.Unlock()
	var errs []error
	for _, set := range sets {
		for _, k := range set.kids {
			k.stop()
			if err := k.cap.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("skill %q: close MCP server %q: %w", k.skill, k.decl.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}
