package pin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// Mode is a server's pin policy, the pins key.
type Mode string

// The pin policies.
const (
	// Off neither pins nor compares.
	Off Mode = "off"
	// Warn pins the first listing, serves later definitions as they are and reports each
	// drift once. The default of the user's own servers.
	Warn Mode = "warn"
	// Block pins the first listing and keeps changed and new definitions out of every view
	// until approved. The default of a trusted project's servers.
	Block Mode = "block"
)

// ParseMode returns the Mode s names; "" is "" (the default applies).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "", Off, Warn, Block:
		return m, nil
	}
	return "", fmt.Errorf("%q is not a pin policy (off, warn or block)", s)
}

// ErrBlocked is returned, wrapped with the server, the definition and how to approve it, by
// a call to a definition kept out by Block.
var ErrBlocked = errors.New("kept out until approved")

// Key returns the pin file key of the server name declared at origin ("user", or the
// project's folder) by s: a digest of what the server is — where declared, its name, type,
// command, arguments and URL. Not its env, headers or auth: rotating a secret keeps its pins,
// and nothing derived from a secret's value names a file.
func Key(origin, name string, s decl.Server) string {
	data, _ := json.Marshal(struct {
		Origin, Name, Type, Command, URL string
		Args                             []string
	}{origin, name, s.Type, s.Command, s.URL, s.Args})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ServerDrift is the drift a Guard last saw of one server.
type ServerDrift struct {
	Server, Origin string
	Mode           Mode
	Drift          []Drift
	// Err is why the pins could not be read or written.
	Err error
}

// Book is the pins of a running host: the store, the Guard of each server, the drift they
// saw. It is safe for concurrent use.
type Book struct {
	store *Store
	log   *slog.Logger
	// onDrift, when set, is called once for each drift a Guard reports.
	onDrift func(server string, d Drift)

	mu       sync.Mutex
	guards   map[*Guard]struct{}
	reported map[string]bool
}

// NewBook returns the book over store; onDrift (nil: none) is told each drift once, as it is
// logged to log.
func NewBook(store *Store, log *slog.Logger, onDrift func(server string, d Drift)) *Book {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Book{store: store, log: log, onDrift: onDrift, guards: map[*Guard]struct{}{}, reported: map[string]bool{}}
}

// Store returns the book's store.
func (b *Book) Store() *Store { return b.store }

// Guard returns the guard of the server name declared at origin with key (Key) and policy
// mode. Close it with the server.
func (b *Book) Guard(key, name, origin string, mode Mode) *Guard {
	g := &Guard{b: b, key: key, server: name, origin: origin, mode: mode}
	b.mu.Lock()
	b.guards[g] = struct{}{}
	b.mu.Unlock()
	return g
}

// Changed tells the guards that the store changed (an approval, a reset): each guard whose
// file is among paths (all of them when none are given) and differs from what it last read
// or wrote runs its OnChange function. Each file is looked at once, however many guards
// share it.
func (b *Book) Changed(paths ...string) {
	names := map[string]bool{}
	for _, p := range paths {
		names[filepath.Base(p)] = true
	}
	b.mu.Lock()
	byKey := map[string][]*Guard{}
	for g := range b.guards {
		if len(paths) == 0 || names[g.key+".json"] {
			byKey[g.key] = append(byKey[g.key], g)
		}
	}
	b.mu.Unlock()
	for key, gs := range byKey {
		var info os.FileInfo
		if len(paths) > 0 {
			p, _ := b.store.path(key)
			info, _ = os.Stat(p)
		}
		for _, g := range gs {
			g.mu.Lock()
			same := info != nil && g.cached != nil && sameFile(g.cached.info, info)
			if !same {
				g.cached = nil
			}
			f := g.onChange
			g.mu.Unlock()
			if f != nil && !same {
				f()
			}
		}
	}
}

func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// Drift returns what the open guards last saw that differs from their pins, by server name:
// one entry per pin file, however many guards (a server served once per client session)
// share it, each drift in it once.
func (b *Book) Drift() []ServerDrift {
	b.mu.Lock()
	byKey := map[string]*ServerDrift{}
	for g := range b.guards {
		g.mu.Lock()
		if len(g.drift) > 0 || g.err != nil {
			sd := byKey[g.key]
			if sd == nil {
				sd = &ServerDrift{Server: g.server, Origin: g.origin, Mode: g.mode}
				byKey[g.key] = sd
			}
			if sd.Err == nil {
				sd.Err = g.err
			}
			for _, d := range g.drift {
				if !slices.ContainsFunc(sd.Drift, func(e Drift) bool { return sameDrift(d, e) }) {
					sd.Drift = append(sd.Drift, d)
				}
			}
		}
		g.mu.Unlock()
	}
	b.mu.Unlock()
	out := make([]ServerDrift, 0, len(byKey))
	for _, sd := range byKey {
		slices.SortStableFunc(sd.Drift, func(a, c Drift) int { return strings.Compare(a.Def().ID(), c.Def().ID()) })
		out = append(out, *sd)
	}
	slices.SortFunc(out, func(a, c ServerDrift) int {
		if a.Server != c.Server {
			return strings.Compare(a.Server, c.Server)
		}
		return strings.Compare(a.Origin, c.Origin)
	})
	return out
}

// sameDrift says whether a and c are the same drift of one definition.
func sameDrift(a, c Drift) bool {
	x, y := a.Def(), c.Def()
	return a.Status == c.Status && x.ID() == y.ID() && x.Digest == y.Digest
}

// report logs and counts d once per (server, definition, digest).
func (b *Book) report(g *Guard, d Drift) {
	def := d.Def()
	id := g.key + " " + d.Status + " " + def.ID() + " " + def.Digest
	b.mu.Lock()
	seen := b.reported[id]
	b.reported[id] = true
	b.mu.Unlock()
	if seen {
		return
	}
	attrs := []any{"server", g.server, "origin", g.origin, "policy", string(g.mode), "kind", def.Kind, "name", def.Name, "drift", d.Status}
	if len(d.Description) > 0 {
		attrs = append(attrs, "description", FormatWordDiff(d.Description))
	}
	for _, c := range append(slices.Clone(d.Schema), d.Output...) {
		attrs = append(attrs, "schema "+c.Op, c.Path)
	}
	b.log.Warn("pinned definition drifted; review with `agentpool pins list "+g.server+"`", attrs...)
	if b.onDrift != nil {
		b.onDrift(g.server, d)
	}
}

// Guard checks one server's listings against its pins (the Guard of mcpcap). Its methods are
// safe for concurrent use.
type Guard struct {
	b                   *Book
	key, server, origin string
	mode                Mode

	mu       sync.Mutex
	onChange func()
	cached   *cachedRecord
	tools    toolCache
	drift    []Drift
	err      error
	// last is, by kind, the last listing checked and what it kept out, valid while cached is
	// the record it was checked against.
	last map[string]*lastListing
}

// cachedRecord is a record as read, with the file's identity when read: listing again does
// not parse an unchanged file.
type cachedRecord struct {
	r    *Record
	info os.FileInfo
}

// OnChange sets the function called when the store changes (Book.Changed).
func (g *Guard) OnChange(f func()) {
	g.mu.Lock()
	g.onChange = f
	g.mu.Unlock()
}

// Close removes the guard from its book. It is idempotent.
func (g *Guard) Close() error {
	g.b.mu.Lock()
	delete(g.b.guards, g)
	g.b.mu.Unlock()
	return nil
}

// Mode returns the guard's policy.
func (g *Guard) Mode() Mode { return g.mode }

func kindWord(kind string) string {
	if kind == KindTemplate {
		return "resource template"
	}
	return kind
}

// blocked returns, by key (a tool's or prompt's name, a template's URI template), the error
// of each changed or new definition of kind in drift under Block; nil otherwise.
func (g *Guard) blocked(drift []Drift, kind string) map[string]error {
	if g.mode != Block || len(drift) == 0 {
		return nil
	}
	var blocked map[string]error
	for _, d := range drift {
		if d.New != nil && d.New.Kind == kind {
			if blocked == nil {
				blocked = map[string]error{}
			}
			key := d.New.key()
			blocked[key] = fmt.Errorf("mcp server %q: %s %q %s: %w; review it with `agentpool pins list %s`, allow it with `agentpool pins approve %s %s`",
				g.server, kindWord(kind), key, d.what(), ErrBlocked, g.server, g.server, shellWord(key))
		}
	}
	return blocked
}

// check compares l (a complete listing of its kind) with the pins, pinning it when the
// server has none of its kind, recording what differs as pending, and reporting it. It
// returns the drift of l's kind.
func (g *Guard) check(l *listing) ([]Drift, error) {
	kind, digest := l.kind, l.digest()
	r, err := g.load(kind, digest)
	if err == nil && r.cleanFor(kind, digest) { // this very listing matched these pins
		g.setDrift(kind, nil, nil)
		return nil, nil
	}
	if err == nil && r != nil && r.shallow {
		r, err = g.loadIndex()
	}
	if err != nil {
		return nil, g.failed(kind, err)
	}
	defs := l.makeDefs(r)
	var drift []Drift
	if listed(r, kind) {
		drift = Compare(defs, r.Pinned, kind)
		if len(drift) > 0 && r.partial { // the diffs need the pinned texts
			if r, err = g.loadFull(); err != nil {
				return nil, g.failed(kind, err)
			}
			drift = Compare(defs, r.Pinned, kind) // r nil (reset meanwhile): pinned below
		}
	}
	prior := r // as the file was before this listing: what it holds pending was reported
	if stale(r, kind, digest, defs, drift) {
		first := !listed(r, kind)
		err = g.b.store.Update(g.key, func(cur *Record) (*Record, bool, error) {
			// Compared again under the lock: another process may have pinned, approved or
			// reset since r was read, and what it wrote stands.
			pinned := !listed(cur, kind)
			if pinned { // this listing is the first of its kind: pinned
				cur, drift = pinKind(cur, g, defs, kind), nil
			} else {
				drift = Compare(defs, cur.Pinned, kind)
			}
			r = cur
			if !pinned && !stale(cur, kind, digest, defs, drift) {
				return cur, false, nil
			}
			setPending(cur, kind, drift)
			keepRaw(cur, defs)
			if len(drift) == 0 && digest != "" {
				cur.setClean(kind, digest)
			}
			return cur, true, nil
		})
		switch {
		case err != nil && first: // nothing pinned: nothing to compare with
			return nil, g.failed(kind, err)
		case err != nil:
			g.b.log.Error("pins not saved", "server", g.server, "err", err)
		default:
			g.remember(r)
		}
	}
	g.setDrift(kind, drift, nil)
	for _, d := range drift {
		if !standing(prior, d) {
			g.b.report(g, d)
		}
	}
	return drift, nil
}

// standing says whether r, as read before a listing, already records d as pending or
// removed: the process that recorded it reported it, and it stands unapproved.
func standing(r *Record, d Drift) bool {
	if r == nil {
		return false
	}
	if d.Status == Removed {
		return slices.Contains(r.Removed, d.Old.ID())
	}
	p, ok := r.Pending[d.New.ID()]
	_, pinned := r.Pinned[d.New.ID()]
	return ok && p.Digest == d.New.Digest && pinned == (d.Status == Changed)
}

// stale says whether r, against which defs (the listing of kind with digest, "" for none)
// drifted by drift, needs writing: the kind not pinned yet, pending other than drift, a raw
// digest to keep, or a clean listing to record.
func stale(r *Record, kind, digest string, defs []Definition, drift []Drift) bool {
	return !listed(r, kind) || !sameKindPending(r, kind, drift) || rawless(r, defs) ||
		(len(drift) == 0 && digest != "" && !r.cleanFor(kind, digest))
}

// failed records err, why the pins of kind could not be read or written, reports it once and
// returns it.
func (g *Guard) failed(kind string, err error) error {
	g.mu.Lock()
	said := g.err != nil && g.err.Error() == err.Error()
	g.mu.Unlock()
	g.setDrift(kind, nil, err)
	if !said { // once, not at every listing
		level := slog.LevelWarn
		if g.mode == Block {
			level = slog.LevelError // every definition of the server is kept out
		}
		g.b.log.Log(context.Background(), level, "pins unreadable", "server", g.server, "policy", string(g.mode), "err", err)
	}
	return err
}

// pinKind pins defs, a first listing of kind, in cur (a new record when nil) and returns it.
func pinKind(cur *Record, g *Guard, defs []Definition, kind string) *Record {
	if cur == nil {
		cur = &Record{Server: g.server, Origin: g.origin, PinnedAt: time.Now().UTC()}
	} else if len(cur.Listed) == 0 {
		cur.Listed = []string{KindTool} // written before Listed: its pins are tools'
	}
	if cur.Pinned == nil {
		cur.Pinned = map[string]Definition{}
	}
	for _, d := range defs {
		d.fill()
		cur.Pinned[d.ID()] = d
	}
	cur.Listed = append(cur.Listed, kind)
	slices.Sort(cur.Listed)
	return cur
}

// listed says whether r pinned a first listing of kind; a record written before Listed
// was kept pinned tools only.
func listed(r *Record, kind string) bool {
	if r == nil {
		return false
	}
	if len(r.Listed) == 0 {
		return kind == KindTool
	}
	return slices.Contains(r.Listed, kind)
}

// load returns the record, reading the file only when it changed since the last read, and
// then only its clean listings when they hold digest (a listing's) for kind.
func (g *Guard) load(kind, digest string) (*Record, error) {
	p, err := g.b.store.path(g.key)
	if err != nil {
		return nil, err
	}
	info, statErr := os.Stat(p)
	g.mu.Lock()
	c := g.cached
	g.mu.Unlock()
	if statErr == nil && c != nil && sameFile(c.info, info) && (!c.r.shallow || c.r.cleanFor(kind, digest)) {
		return c.r, nil
	}
	if statErr == nil {
		if r := readClean(p, kind, digest); r != nil {
			g.cache(r, info)
			return r, nil
		}
	}
	return g.readIndex(p, info, statErr)
}

// loadIndex returns the record as its file's index has it.
func (g *Guard) loadIndex() (*Record, error) {
	p, err := g.b.store.path(g.key)
	if err != nil {
		return nil, err
	}
	info, statErr := os.Stat(p)
	return g.readIndex(p, info, statErr)
}

// readIndex reads the record in p from its index; info and statErr are p's from before.
func (g *Guard) readIndex(p string, info os.FileInfo, statErr error) (*Record, error) {
	r, err := readFile(p, true)
	if err != nil || r == nil || statErr != nil {
		return r, err
	}
	if r.legacy { // written without its index or its size: written again with them
		err = g.b.store.Update(g.key, func(cur *Record) (*Record, bool, error) {
			r = cur
			return cur, cur != nil && cur.legacy, nil
		})
		if err != nil || r == nil {
			return r, err
		}
		g.remember(r)
		return r, nil
	}
	g.cache(r, info)
	return r, nil
}

// loadFull returns the record with its definitions' texts, read from the file.
func (g *Guard) loadFull() (*Record, error) {
	p, err := g.b.store.path(g.key)
	if err != nil {
		return nil, err
	}
	info, statErr := os.Stat(p)
	r, err := loadFile(p)
	if err != nil || r == nil || statErr != nil {
		return r, err
	}
	g.cache(r, info)
	return r, nil
}

// cache caches r as the content of the guard's file when it was info. info is from before the
// read: a file replaced meanwhile differs from it at the next listing, which reads it again.
func (g *Guard) cache(r *Record, info os.FileInfo) {
	g.mu.Lock()
	g.cached = &cachedRecord{r: r, info: info}
	g.mu.Unlock()
}

// remember caches r as the content of the guard's file now.
func (g *Guard) remember(r *Record) {
	p, _ := g.b.store.path(g.key)
	if info, err := os.Stat(p); err == nil {
		g.mu.Lock()
		g.cached = &cachedRecord{r: r, info: info}
		g.mu.Unlock()
	}
}

func (g *Guard) setDrift(kind string, drift []Drift, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.err = err
	g.drift = slices.DeleteFunc(g.drift, func(d Drift) bool { return d.Def().Kind == kind })
	g.drift = append(g.drift, drift...)
}

// sameKindPending says whether r already records drift (of kind) as pending and removed.
func sameKindPending(r *Record, kind string, drift []Drift) bool {
	want := map[string]string{}
	var removed []string
	for _, d := range drift {
		if d.Status == Removed {
			removed = append(removed, d.Old.ID())
		} else {
			want[d.New.ID()] = d.New.Digest
		}
	}
	n := 0
	for id, d := range r.Pending {
		if d.Kind != kind {
			continue
		}
		n++
		if want[id] != d.Digest {
			return false
		}
	}
	var have []string
	for _, id := range r.Removed {
		if old, ok := r.Pinned[id]; ok && old.Kind == kind {
			have = append(have, id)
		}
	}
	return n == len(want) && slices.Equal(have, removed)
}

// setPending replaces r's pending and removed definitions of kind with drift's.
func setPending(r *Record, kind string, drift []Drift) {
	for id, d := range r.Pending {
		if d.Kind == kind {
			delete(r.Pending, id)
		}
	}
	r.Removed = slices.DeleteFunc(r.Removed, func(id string) bool {
		old, ok := r.Pinned[id]
		return !ok || old.Kind == kind
	})
	for _, d := range drift {
		if d.Status == Removed {
			r.Removed = append(r.Removed, d.Old.ID())
			continue
		}
		if r.Pending == nil {
			r.Pending = map[string]Definition{}
		}
		r.Pending[d.New.ID()] = *d.New
	}
	slices.Sort(r.Removed)
}
