package ext

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults applied by NewRegistry to zero RegistryOptions fields.
const (
	DefaultPoolID              = "default"
	DefaultCloseTimeout        = 5 * time.Second
	DefaultMaxCompositionDepth = 3
)

// RegistryOptions configures a Registry. A nil *RegistryOptions and zero fields mean defaults.
type RegistryOptions struct {
	// PoolID names the registry's pool (default "default"). A query whose Scope.PoolID is
	// non-empty and different sees nothing.
	PoolID string
	// CloseTimeout bounds each capability's Close in Close and CloseScope, and each OnClose
	// function (default 5s). A Close still running then is abandoned with a logged error.
	CloseTimeout time.Duration
	// MaxCompositionDepth is the deepest composition chain, root counted, registered without a
	// warning (default 3). Deeper chains log a warning and still register.
	MaxCompositionDepth int
	// Logger receives warnings and abandoned-close errors (default slog.Default()).
	Logger *slog.Logger
}

// Registry is the RFC's ExtensionRegistry: it holds capabilities in scope slots and answers, for
// a caller's Scope, which of them it sees; it routes URIs to them, merges their change
// notifications and closes them in order.
//
// All methods are safe for concurrent use. Queries take a read lock and cost what is visible
// to the caller, not how many sessions, agents or turns exist.
type Registry struct {
	poolID       string
	closeTimeout time.Duration
	maxDepth     int
	log          *slog.Logger

	mu       sync.RWMutex
	closed   bool
	pool     []*entry
	agents   map[string][]*entry         // static agent slots, by agent name
	sessions map[string]*sessionSlots    // by session id
	turnSess map[string]map[string]int   // agent name → session ids holding turn slots of it → count
	refs     map[Capability]int          // live registrations (and composition members) per capability
	graph    map[Capability][]Capability // composition edges parent → children
	parents  map[Capability][]Capability // the same edges child → parents
	added    map[Capability][]addedChild // what each AddChild under a parent recorded
	onClose  []func(context.Context) error

	subs subscribers
	held held // announcements deferred by Hold

	agentGen map[string]uint64 // by agent name: how often TouchAgent was called (guarded by mu)

	sessionCheck atomic.Pointer[func(string) error] // SetSessionCheck's

	closeOnce sync.Once
	closeDone chan struct{}
}

// sessionSlots holds the slots belonging to one session. The maps stay nil until used so an
// idle session costs one small struct.
type sessionSlots struct {
	caps   []*entry
	agents map[string][]*entry            // session-qualified agent slots
	turns  map[string]map[string][]*entry // agent name → turn id → slot
}

func (s *sessionSlots) empty() bool {
	return len(s.caps) == 0 && len(s.agents) == 0 && len(s.turns) == 0
}

// entry is one registration.
type entry struct {
	cap     Capability
	name    string
	level   ScopeLevel
	slot    Scope // only the fields that matter for level are set
	schemes []string
	origin  Origin
	id      uint64        // unique per registration, for Stamp
	gen     atomic.Uint64 // bumped by every change event of cap while registered here
	members []Capability  // composition members this registration holds a ref on (besides cap)

	live    atomic.Bool // false once unregistered: events after that are dropped
	obsMu   sync.Mutex
	stop    func()
	removed bool
}

// RegisterOption configures one registration.
type RegisterOption func(*registerConfig)

type registerConfig struct {
	schemes []string
	origin  *Origin
}

// WithOrigin says where the capability's content comes from, overriding what the capability
// says of itself (Originator). Routing and the view's tool naming and trust depend on it.
func WithOrigin(o Origin) RegisterOption {
	return func(c *registerConfig) { c.origin = &o }
}

// WithSchemes routes URIs of the given schemes (besides skill:// and mcp://, which are always
// routed by type) to the capability, which must implement ResourceSource to serve them.
// Schemes are case-insensitive; "skill" makes the capability a fallback for skill:// URIs no
// SkillResource has. "mcp" is reserved and rejected by Register.
func WithSchemes(schemes ...string) RegisterOption {
	return func(c *registerConfig) { c.schemes = append(c.schemes, schemes...) }
}

// NewRegistry returns an empty registry. It copies opts; nil means defaults.
func NewRegistry(opts *RegistryOptions) *Registry {
	var o RegistryOptions
	if opts != nil {
		o = *opts
	}
	if o.PoolID == "" {
		o.PoolID = DefaultPoolID
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	if o.MaxCompositionDepth <= 0 {
		o.MaxCompositionDepth = DefaultMaxCompositionDepth
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := &Registry{
		poolID:       o.PoolID,
		closeTimeout: o.CloseTimeout,
		maxDepth:     o.MaxCompositionDepth,
		log:          o.Logger,
		agents:       make(map[string][]*entry),
		sessions:     make(map[string]*sessionSlots),
		turnSess:     make(map[string]map[string]int),
		refs:         make(map[Capability]int),
		graph:        make(map[Capability][]Capability),
		parents:      make(map[Capability][]Capability),
		added:        make(map[Capability][]addedChild),
		closeDone:    make(chan struct{}),
	}
	r.subs.init()
	return r
}

// Logger returns the logger the registry was created with (RegistryOptions.Logger, else
// slog.Default()), for what consumers of its capabilities report about them.
func (r *Registry) Logger() *slog.Logger { return r.log }

// normalizeSlot keeps the fields of slot that matter at level and checks the required ones.
func (r *Registry) normalizeSlot(level ScopeLevel, slot Scope) (Scope, error) {
	if slot.PoolID != "" && slot.PoolID != r.poolID {
		return Scope{}, fmt.Errorf("slot %s: pool %q is not this registry's pool %q", slot, slot.PoolID, r.poolID)
	}
	switch level {
	case LevelPool:
		return Scope{}, nil
	case LevelSession:
		if slot.SessionID == "" {
			return Scope{}, fmt.Errorf("slot %s: level session needs a SessionID", slot)
		}
		return Scope{SessionID: slot.SessionID}, nil
	case LevelAgent:
		if slot.AgentName == "" {
			return Scope{}, fmt.Errorf("slot %s: level agent needs an AgentName", slot)
		}
		return Scope{SessionID: slot.SessionID, AgentName: slot.AgentName}, nil
	case LevelTurn:
		if slot.SessionID == "" || slot.AgentName == "" || slot.TurnID == "" {
			return Scope{}, fmt.Errorf("slot %s: level turn needs SessionID, AgentName and TurnID", slot)
		}
		return Scope{SessionID: slot.SessionID, AgentName: slot.AgentName, TurnID: slot.TurnID}, nil
	}
	return Scope{}, fmt.Errorf("slot %s: unknown scope level %d", slot, int(level))
}

// checkCapability rejects values that cannot be registered: nil (also a typed nil pointer) and
// values that cannot be map keys.
func checkCapability(c Capability, what string) error {
	if c == nil {
		return fmt.Errorf("%s: nil capability", what)
	}
	v := reflect.ValueOf(c)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		if v.IsNil() {
			return fmt.Errorf("%s: nil %T capability", what, c)
		}
	}
	if !v.Comparable() {
		return fmt.Errorf("%s: capability of type %T is not comparable (use a pointer)", what, c)
	}
	return nil
}

// Register adds c to the slot of level: see Scope for which slot fields each level needs
// (fields that do not matter at level are ignored). Names are unique per slot (ErrDuplicate).
//
// Register records c's composition edges (Composite.Children, recursively), rejecting a cycle
// with ErrCircularComposition and logging a warning when the chain is deeper than
// MaxCompositionDepth. Subscribers that see c get one event of each kind it can offer (see
// announce), as Unregister gives them. If c is a ChangeObservable, Register subscribes to it before c becomes
// visible, so no change after that is missed, until c is unregistered or closed (or at once
// stops again when Register fails); a panic in c's Observe is returned as an error. After Close
// it returns ErrClosed. On error nothing is registered.
func (r *Registry) Register(c Capability, level ScopeLevel, slot Scope, opts ...RegisterOption) error {
	if err := checkCapability(c, "register"); err != nil {
		return err
	}
	name := c.Name()
	if name == "" {
		return fmt.Errorf("register %T: capability has an empty name", c)
	}
	slot, err := r.normalizeSlot(level, slot)
	if err != nil {
		return fmt.Errorf("register %q: %w", name, err)
	}
	var cfg registerConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	schemes, err := normalizeSchemes(cfg.schemes)
	if err != nil {
		return fmt.Errorf("register %q: %w", name, err)
	}
	// Children are asked outside the lock: they are capability code.
	edges, err := collectEdges(c)
	if err != nil {
		return fmt.Errorf("register %q at %s %s: %w", name, level, slot, err)
	}

	origin := OriginOf(c)
	if cfg.origin != nil && cfg.origin.Kind != "" {
		origin = *cfg.origin
	}
	e := &entry{cap: c, name: name, level: level, slot: slot, schemes: schemes, origin: origin, id: entryIDs.Add(1)}
	// Observe before the entry becomes visible: events until then are dropped (e is not
	// live), but a change after it is counted, even one made while Register is still running.
	// Observing after insertion would lose a change made in between, and with it the
	// invalidation of a view compiled in that window. A panic in the capability's Observe is
	// its failure, not the caller's: it is returned, and nothing stays registered or observed.
	if err := observeSafely(r, e); err != nil {
		e.unobserve()
		return fmt.Errorf("register %q at %s %s: observe: %w", name, level, slot, err)
	}
	var depth int
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		e.unobserve()
		return fmt.Errorf("register %q: registry: %w", name, ErrClosed)
	}
	list := r.slotLocked(level, slot)
	for _, o := range list {
		if o.name == name {
			r.mu.Unlock()
			e.unobserve()
			return fmt.Errorf("register %q at %s %s: %w", name, level, slot, ErrDuplicate)
		}
	}
	if err := r.checkEdgesLocked(edges); err != nil {
		r.mu.Unlock()
		e.unobserve()
		return fmt.Errorf("register %q at %s %s: %w", name, level, slot, err)
	}
	e.members = r.addEdgesLocked(c, edges)
	r.refs[c]++
	if len(edges) > 0 {
		depth = r.depthThroughLocked(c)
	}
	r.insertLocked(e)
	r.mu.Unlock()
	r.announce(e)

	if depth > r.maxDepth {
		r.log.Warn("ext: composition deeper than max_composition_depth",
			"capability", name, "level", level.String(), "slot", slot.String(),
			"depth", depth, "max", r.maxDepth)
	}
	return nil
}

// observeSafely is r.observe(e) with a panic in the capability's Observe returned as an error.
func observeSafely(r *Registry, e *entry) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	r.observe(e)
	return nil
}

func normalizeSchemes(in []string) ([]string, error) {
	var out []string
	for _, s := range in {
		ls, err := parseScheme(s)
		if err != nil {
			return nil, fmt.Errorf("WithSchemes(%q): %w", s, err)
		}
		if ls == "mcp" {
			return nil, fmt.Errorf("WithSchemes(%q): scheme mcp is reserved for mcp://<server>/<uri> routing", s)
		}
		if !slices.Contains(out, ls) {
			out = append(out, ls)
		}
	}
	return out, nil
}

// slotLocked returns the slot's entries (nil when empty).
func (r *Registry) slotLocked(level ScopeLevel, slot Scope) []*entry {
	switch level {
	case LevelPool:
		return r.pool
	case LevelSession:
		if s := r.sessions[slot.SessionID]; s != nil {
			return s.caps
		}
	case LevelAgent:
		if slot.SessionID == "" {
			return r.agents[slot.AgentName]
		}
		if s := r.sessions[slot.SessionID]; s != nil {
			return s.agents[slot.AgentName]
		}
	case LevelTurn:
		if s := r.sessions[slot.SessionID]; s != nil {
			return s.turns[slot.AgentName][slot.TurnID]
		}
	}
	return nil
}

// setSlotLocked stores list as the slot's entries, creating or deleting index entries so that
// empty slots cost nothing.
func (r *Registry) setSlotLocked(level ScopeLevel, slot Scope, list []*entry) {
	if len(list) == 0 {
		list = nil
	}
	switch level {
	case LevelPool:
		r.pool = list
		return
	case LevelAgent:
		if slot.SessionID == "" {
			if list == nil {
				delete(r.agents, slot.AgentName)
			} else {
				r.agents[slot.AgentName] = list
			}
			return
		}
	}
	s := r.sessions[slot.SessionID]
	if s == nil {
		if list == nil {
			return
		}
		s = &sessionSlots{}
		r.sessions[slot.SessionID] = s
	}
	switch level {
	case LevelSession:
		s.caps = list
	case LevelAgent:
		if list == nil {
			delete(s.agents, slot.AgentName)
			if len(s.agents) == 0 {
				s.agents = nil
			}
		} else {
			if s.agents == nil {
				s.agents = make(map[string][]*entry, 1)
			}
			s.agents[slot.AgentName] = list
		}
	case LevelTurn:
		turns := s.turns[slot.AgentName]
		if list == nil {
			if _, ok := turns[slot.TurnID]; ok {
				delete(turns, slot.TurnID)
				r.turnSessDecLocked(slot.AgentName, slot.SessionID)
			}
			if len(turns) == 0 {
				delete(s.turns, slot.AgentName)
			}
			if len(s.turns) == 0 {
				s.turns = nil
			}
		} else {
			if turns == nil {
				if s.turns == nil {
					s.turns = make(map[string]map[string][]*entry, 1)
				}
				turns = make(map[string][]*entry, 1)
				s.turns[slot.AgentName] = turns
			}
			if _, ok := turns[slot.TurnID]; !ok {
				r.turnSessIncLocked(slot.AgentName, slot.SessionID)
			}
			turns[slot.TurnID] = list
		}
	}
	if s.empty() {
		delete(r.sessions, slot.SessionID)
	}
}

func (r *Registry) turnSessIncLocked(agent, session string) {
	m := r.turnSess[agent]
	if m == nil {
		m = make(map[string]int, 1)
		r.turnSess[agent] = m
	}
	m[session]++
}

func (r *Registry) turnSessDecLocked(agent, session string) {
	m := r.turnSess[agent]
	if m[session] <= 1 {
		delete(m, session)
		if len(m) == 0 {
			delete(r.turnSess, agent)
		}
		return
	}
	m[session]--
}

func (r *Registry) insertLocked(e *entry) {
	e.live.Store(true)
	list := r.slotLocked(e.level, e.slot)
	r.setSlotLocked(e.level, e.slot, append(list, e))
}

// removeLocked takes e out of its slot and releases its composition refs. The caller stops
// observing e after unlocking.
func (r *Registry) removeLocked(e *entry) {
	list := r.slotLocked(e.level, e.slot)
	if i := slices.Index(list, e); i >= 0 {
		// A fresh slice: readers may hold the old one only under the read lock, but keeping
		// the backing array of a shrinking slot would pin removed entries.
		nl := make([]*entry, 0, len(list)-1)
		nl = append(nl, list[:i]...)
		nl = append(nl, list[i+1:]...)
		r.setSlotLocked(e.level, e.slot, nl)
	}
	r.releaseLocked(e.cap)
	for _, m := range e.members {
		r.releaseLocked(m)
	}
	e.members = nil
}

// Unregister removes the capability named name from the slot of level. It does not Close it
// and stops forwarding its change events, after one event of each kind it can offer (see
// announce) to the subscribers that saw it. A capability that is not there is ErrNotFound.
func (r *Registry) Unregister(level ScopeLevel, slot Scope, name string) error {
	slot, err := r.normalizeSlot(level, slot)
	if err != nil {
		return fmt.Errorf("unregister %q: %w", name, err)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fmt.Errorf("unregister %q: registry: %w", name, ErrClosed)
	}
	var found *entry
	for _, e := range r.slotLocked(level, slot) {
		if e.name == name {
			found = e
			break
		}
	}
	if found == nil {
		r.mu.Unlock()
		return fmt.Errorf("unregister %q at %s %s: %w", name, level, slot, ErrNotFound)
	}
	r.removeLocked(found)
	r.mu.Unlock()
	r.announce(found) // before unobserve: fanout forwards only a live entry's events
	found.unobserve()
	return nil
}

// partsLocked returns the five slot lists scope sees, in Visible order, and their total length.
func (r *Registry) partsLocked(scope Scope) (parts [5][]*entry, n int) {
	if scope.PoolID != "" && scope.PoolID != r.poolID {
		return parts, 0
	}
	parts[0] = r.pool
	var sess *sessionSlots
	if scope.SessionID != "" {
		sess = r.sessions[scope.SessionID]
	}
	if sess != nil {
		parts[1] = sess.caps
	}
	if scope.AgentName != "" {
		parts[2] = r.agents[scope.AgentName]
		if sess != nil {
			parts[3] = sess.agents[scope.AgentName]
			if scope.TurnID != "" {
				parts[4] = sess.turns[scope.AgentName][scope.TurnID]
			}
		}
	}
	for _, p := range parts {
		n += len(p)
	}
	return parts, n
}

// visibleEntries returns the entries scope sees, in Visible order.
func (r *Registry) visibleEntries(scope Scope) []*entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	parts, n := r.partsLocked(scope)
	if n == 0 {
		return nil
	}
	out := make([]*entry, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Visible returns the capabilities scope sees: the pool's; the session's (SessionID set); the
// agent's static ones and, with SessionID, that session's ones for the agent (AgentName set);
// and the turn's (all of SessionID, AgentName and TurnID set). Order: pool, session, static
// agent, session-qualified agent, turn; registration order within each. A scope naming another
// pool sees nothing. The slice is the caller's.
func (r *Registry) Visible(scope Scope) []Capability {
	r.mu.RLock()
	defer r.mu.RUnlock()
	parts, n := r.partsLocked(scope)
	if n == 0 {
		return nil
	}
	out := make([]Capability, 0, n)
	for _, p := range parts {
		for _, e := range p {
			out = append(out, e.cap)
		}
	}
	return out
}

// Registration is one visible registration: the capability, where it was registered and where
// its content comes from.
type Registration struct {
	Capability Capability
	Level      ScopeLevel
	// Slot holds the fields of the registration's slot that matter at Level.
	Slot   Scope
	Origin Origin
}

// Registrations returns what Visible returns, with each capability's level, slot and origin.
func (r *Registry) Registrations(scope Scope) []Registration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	parts, n := r.partsLocked(scope)
	if n == 0 {
		return nil
	}
	out := make([]Registration, 0, n)
	for _, p := range parts {
		for _, e := range p {
			out = append(out, Registration{Capability: e.cap, Level: e.level, Slot: e.slot, Origin: e.origin})
		}
	}
	return out
}

// Stamp identifies what scope sees: the set of visible registrations and every change event
// any of them has reported. Two equal stamps taken at different times mean nothing visible to
// scope was registered, unregistered or reported a change in between, so a view compiled at the
// first is still current; a change anywhere else (another session, another agent) leaves the
// stamp alone. It costs one pass over the visible registrations, with no allocation.
//
// Stamps are hashes: two different states collide with a probability of about 2^-64.
type Stamp struct {
	n        int
	sum, xor uint64
}

// Stamp returns scope's current stamp.
func (r *Registry) Stamp(scope Scope) Stamp {
	r.mu.RLock()
	defer r.mu.RUnlock()
	parts, n := r.partsLocked(scope)
	st := Stamp{n: n}
	for _, p := range parts {
		for _, e := range p {
			v := mix64(e.id) + mix64(e.gen.Load()^(e.id<<20))
			st.sum += v
			st.xor ^= v
		}
	}
	if v := r.agentStampLocked(scope.AgentName); v != 0 {
		st.sum += v
		st.xor ^= v
	}
	return st
}

// entryIDs numbers registrations for Stamp.
var entryIDs atomic.Uint64

// mix64 is splitmix64's finaliser: a bijection that spreads nearby integers far apart.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// visibleOf returns the visible capabilities implementing T, in Visible order.
func visibleOf[T any](r *Registry, scope Scope) []T {
	var out []T
	for _, c := range r.Visible(scope) {
		if t, ok := c.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// SkillResources returns the visible capabilities implementing SkillResource, in Visible order.
func (r *Registry) SkillResources(scope Scope) []SkillResource {
	return visibleOf[SkillResource](r, scope)
}

// MCPResources returns the visible capabilities implementing MCPResource, in Visible order.
func (r *Registry) MCPResources(scope Scope) []MCPResource {
	return visibleOf[MCPResource](r, scope)
}

// CommandResources returns the visible capabilities implementing CommandResource, in Visible
// order.
func (r *Registry) CommandResources(scope Scope) []CommandResource {
	return visibleOf[CommandResource](r, scope)
}

// Observables returns the visible capabilities implementing ChangeObservable, in Visible order.
func (r *Registry) Observables(scope Scope) []ChangeObservable {
	return visibleOf[ChangeObservable](r, scope)
}
