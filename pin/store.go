package pin

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"
)

// ErrCorrupt is returned, wrapped with the file's path, when a pin file does not parse.
var ErrCorrupt = errors.New("pin file is corrupt")

// Record is what the store keeps for one server declaration: the definitions the user
// approved, and what the server listed since that was not approved.
type Record struct {
	// Server is the server's name, Origin where it is declared ("user", or the project's
	// folder): what `agentpool pins` shows and matches.
	Server string `json:"server"`
	Origin string `json:"origin"`
	// PinnedAt is when the record was made or last approved.
	PinnedAt time.Time `json:"pinned_at"`
	// Pinned are the approved definitions by Definition.ID.
	Pinned map[string]Definition `json:"pinned"`
	// Pending are the definitions last listed that differ from Pinned (changed or new), by ID;
	// Removed the pinned IDs last seen missing from a listing.
	Pending map[string]Definition `json:"pending,omitempty"`
	Removed []string              `json:"removed,omitempty"`
	// Listed are the kinds of listing pinned so far (a record without it pinned tools).
	Listed []string `json:"listed,omitempty"`

	// Clean are, by kind, the last listing that matched the pins of its kind exactly, with
	// the pins it matched (clean.go).
	Clean map[string]string `json:"clean,omitempty"`

	// partial is set on a record read from its file's index: its definitions hold their
	// kind, name and digest only.
	partial bool
	// shallow is set on a record read from its index line's clean listings alone.
	shallow bool
	// legacy is set on a record read from a file without an index, or with an index that
	// does not record the file's size: a guard writes it again with both.
	legacy bool
}

// Drift returns the record's drift: Pending against Pinned, and Removed.
func (r *Record) Drift() []Drift {
	var out []Drift
	for _, id := range slices.Sorted(maps.Keys(r.Pending)) {
		d := r.Pending[id]
		if old, ok := r.Pinned[id]; ok {
			out = append(out, Diff(old, d))
		} else {
			out = append(out, Drift{Status: New, New: &d})
		}
	}
	for _, id := range r.Removed {
		if old, ok := r.Pinned[id]; ok {
			out = append(out, Drift{Status: Removed, Old: &old})
		}
	}
	return out
}

// approve pins what Pending holds of names (a definition's name or ID) and forgets what
// Removed holds of them; no names means all. It returns how many it approved.
func (r *Record) approve(names []string, now time.Time) int {
	match := func(d Definition) bool {
		return len(names) == 0 || slices.ContainsFunc(names, d.namedBy)
	}
	n := 0
	for id, d := range r.Pending {
		if match(d) {
			if r.Pinned == nil {
				r.Pinned = map[string]Definition{}
			}
			r.Pinned[id] = d
			delete(r.Pending, id)
			n++
		}
	}
	r.Removed = slices.DeleteFunc(r.Removed, func(id string) bool {
		old, ok := r.Pinned[id]
		if ok && match(old) {
			delete(r.Pinned, id)
			n++
			return true
		}
		return !ok
	})
	if n > 0 {
		r.PinnedAt = now
	}
	return n
}

// Store is the pin files in one folder, one per server declaration (its Key), each 0600 in a
// 0700 folder (renameio writes its temporary file 0600), written atomically under the
// folder's lock. Its methods read the files each
// time, so several agentpool processes share it.
type Store struct {
	dir string
}

// NewStore returns the store in dir ($XDG_CONFIG_HOME/agentpool/pins). It does no I/O.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(key string) (string, error) {
	if _, err := hex.DecodeString(key); err != nil || key == "" {
		return "", fmt.Errorf("pin: key %q is not a digest", key)
	}
	return filepath.Join(s.dir, key+".json"), nil
}

// Load returns the record of key, or nil when there is none. A file that does not parse is
// ErrCorrupt, naming it and the `agentpool pins reset KEY` that removes it.
func (s *Store) Load(key string) (*Record, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	return loadFile(p)
}

func loadFile(p string) (*Record, error) { return readFile(p, false) }

// readFile reads the record in p, nil when there is none. With indexOnly, a file with an
// index gives a partial record read from the index alone; otherwise the record is decoded
// and must agree with its index.
func readFile(p string, indexOnly bool) (*Record, error) {
	var data []byte
	var size int64
	var err error
	if indexOnly {
		data, size, err = readHead(p)
		if data != nil {
			defer putHead(data) // what is read from it is copied
		}
	} else {
		data, err = os.ReadFile(p)
		size = int64(len(data))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pin: %w", err)
	}
	// A corrupt file's server is unknown: Reset removes it by its key.
	reset := "fix it, or remove it with `agentpool pins reset " + strings.TrimSuffix(filepath.Base(p), ".json") + "`"
	corrupt := func(why string) error {
		return fmt.Errorf("pin: %s: %w: %s (%s)", p, ErrCorrupt, why, reset)
	}
	head, body, indexed := splitFile(data)
	var x index
	if indexed {
		if x, err = decodeIndex(head); err != nil {
			return nil, corrupt(err.Error())
		}
		if x.Size != 0 && int64(x.Size) != size {
			return nil, corrupt(fmt.Sprintf("its index line records %d bytes, the file has %d: torn or extended", x.Size, size))
		}
		if indexOnly {
			if x.Server == "" {
				return nil, corrupt("no server name")
			}
			r := x.record()
			r.legacy = x.Size == 0
			return r, nil
		}
	}
	var r Record
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, corrupt(err.Error())
	}
	if r.Server == "" {
		return nil, corrupt("no server name")
	}
	keyTemplatesByURI(&r)
	if indexed && !x.agrees(&r) {
		return nil, corrupt("its index line does not match its record")
	}
	r.legacy = !indexed || x.Size == 0
	return &r, nil
}

// lock makes the folder (0700) and takes its lock, which every change holds.
func (s *Store) lock() (func(), error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("pin: %w", err)
	}
	unlock, err := lockedfile.MutexAt(filepath.Join(s.dir, ".lock")).Lock()
	if err != nil {
		return nil, fmt.Errorf("pin: %w", err)
	}
	return unlock, nil
}

// Update reads key's record (nil when none), hands it to fn and writes what fn returns —
// nothing when fn returns the same pointer unchanged (keep), the file removed when nil —
// all under the store's lock, so concurrent processes keep each other's changes. fn's
// error aborts the update.
func (s *Store) Update(key string, fn func(r *Record) (next *Record, write bool, err error)) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	return s.locked(func() error { return update(p, fn) })
}

// locked runs fn under the store's lock.
func (s *Store) locked(fn func() error) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// update is Update of the file p, the lock held.
func update(p string, fn func(r *Record) (next *Record, write bool, err error)) error {
	r, err := loadFile(p)
	if err != nil {
		return err
	}
	next, write, err := fn(r)
	if err != nil || !write {
		return err
	}
	return writeFile(p, next)
}

func writeFile(p string, r *Record) error {
	if r == nil {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pin: %w", err)
		}
		return nil
	}
	data, err := encodeFile(r)
	if err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	if err := renameio.WriteFile(p, data); err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	return nil
}

// Entry is one pin file: its key and record, or why it could not be read.
type Entry struct {
	Key    string
	Record *Record
	Err    error
}

// List returns every pin file, by server name then key; a server named gives only its own.
func (s *Store) List(server string) ([]Entry, error) {
	names, err := filepath.Glob(filepath.Join(s.dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("pin: %w", err)
	}
	var out []Entry
	for _, n := range names {
		key := strings.TrimSuffix(filepath.Base(n), ".json")
		r, err := loadFile(n)
		if server != "" && (r == nil || r.Server != server) {
			continue
		}
		if r != nil || err != nil {
			out = append(out, Entry{Key: key, Record: r, Err: err})
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if a.Record != nil && b.Record != nil && a.Record.Server != b.Record.Server {
			return strings.Compare(a.Record.Server, b.Record.Server)
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out, nil
}

// Approve pins, in every record of server, the pending definitions named (by name or ID, a
// resource template by URI template; none named: all of them) and forgets the removed ones
// named. It reads and writes the records under the store's lock, once. It returns how many it
// approved; naming something that is not pending is an error naming it, and approves nothing.
func (s *Store) Approve(server string, names []string, now time.Time) (int, error) {
	return s.approve(server, nil, names, now)
}

// Here says which pin files are this folder's for a server name: the keys a serve here pins
// it under (the host's PinKeys).
type Here func(server string) []string

// ApproveHere is Approve of the records of server that here names only: the server as this
// folder declares it, not another project's server of the same name. None named is an error.
func (s *Store) ApproveHere(here Here, server string, names []string, now time.Time) (int, error) {
	keys := here(server)
	if len(keys) == 0 {
		return 0, fmt.Errorf("pin: no server %q is declared here: approve it in the folder of the project that declares it, with the --config that serve uses", server)
	}
	return s.approve(server, keys, names, now)
}

// approve is Approve of the records of server whose keys are among keys (nil: all).
func (s *Store) approve(server string, keys, names []string, now time.Time) (int, error) {
	total := 0
	err := s.locked(func() error {
		entries, err := s.List(server)
		if err != nil {
			return err
		}
		if keys != nil {
			entries = slices.DeleteFunc(entries, func(e Entry) bool { return !slices.Contains(keys, e.Key) })
		}
		if len(entries) == 0 {
			return fmt.Errorf("pin: no pins for server %q", server)
		}
		for _, e := range entries {
			if e.Err != nil {
				return e.Err
			}
		}
		if missing := notDrifted(entries, names); len(missing) > 0 {
			return fmt.Errorf("pin: server %q has nothing pending named %s", server, quotedOr(missing))
		}
		for _, e := range entries {
			n := e.Record.approve(names, now)
			if n == 0 {
				continue
			}
			p, _ := s.path(e.Key)
			if err := writeFile(p, e.Record); err != nil {
				return err
			}
			total += n
		}
		if total == 0 && len(names) > 0 {
			return fmt.Errorf("pin: server %q has nothing pending named %s", server, strings.Join(names, ", "))
		}
		return nil
	})
	return total, err
}

// quotedOr says names, each quoted: `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func quotedOr(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// notDrifted returns the names that name nothing pending or removed in entries' records.
func notDrifted(entries []Entry, names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.ContainsFunc(entries, func(e Entry) bool { return e.Record != nil && e.Record.drifted(n) }) {
			out = append(out, n)
		}
	}
	return out
}

// drifted says whether n names something pending or removed in r.
func (r *Record) drifted(n string) bool {
	for _, d := range r.Pending {
		if d.namedBy(n) {
			return true
		}
	}
	for _, id := range r.Removed {
		if d, ok := r.Pinned[id]; ok && d.namedBy(n) {
			return true
		}
	}
	return false
}

// Reset removes every record of server: its next listing is pinned afresh. It reads and
// removes them under the store's lock. It returns how many it removed. A corrupt file is
// removed too when it is named by key.
func (s *Store) Reset(server string) (int, error) {
	n := 0
	err := s.locked(func() error {
		entries, err := s.List("")
		if err != nil {
			return err
		}
		for _, e := range entries {
			if (e.Record != nil && e.Record.Server == server) || (e.Err != nil && e.Key == server) {
				p, _ := s.path(e.Key)
				if err := writeFile(p, nil); err != nil {
					return err
				}
				n++
			}
		}
		if n == 0 {
			return fmt.Errorf("pin: no pins for server %q", server)
		}
		return nil
	})
	return n, err
}
