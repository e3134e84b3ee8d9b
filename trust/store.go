package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"
)

// ErrCorrupt is returned, wrapped with the file's path, when the store file does not parse.
var ErrCorrupt = errors.New("trust store is corrupt")

// Record is what the store keeps for one trusted project.
type Record struct {
	// Digests are the digests (Decl.Digest) of every server declaration the project had when
	// it was trusted, sorted.
	Digests []string `json:"digests"`
	// TrustedAt is when the user trusted it.
	TrustedAt time.Time `json:"trusted_at"`
}

// file is the store's JSON document.
type file struct {
	Version  int                `json:"version"`
	Projects map[string]*Record `json:"projects"`
}

// Store is the user's trust decisions, in one JSON file. Its methods read the file each time,
// so two processes see each other's decisions; it is safe for concurrent use as far as the
// file system is.
type Store struct {
	path string
}

// DefaultPath returns $XDG_CONFIG_HOME/agentpool/trust.json, or ~/.config/agentpool/trust.json
// when XDG_CONFIG_HOME is unset or not absolute (as the XDG specification says).
func DefaultPath() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "trust.json"), nil
}

// ConfigDir returns agentpool's folder of the user's configuration: $XDG_CONFIG_HOME/agentpool,
// or ~/.config/agentpool. A relative $XDG_CONFIG_HOME is ignored, as the XDG specification
// says, and a relative $HOME is an error.
func ConfigDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "agentpool"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("trust: no config folder: %w", err)
	}
	if !filepath.IsAbs(home) {
		// Relative, it would name a folder of the working directory: a project could hold
		// its own trust decisions.
		return "", fmt.Errorf("trust: no config folder: $HOME %q is not absolute", home)
	}
	return filepath.Join(home, ".config", "agentpool"), nil
}

// NewStore returns the store kept in the file at path. It does no I/O: a file that does not
// exist yet is an empty store.
func NewStore(path string) *Store { return &Store{path: path} }

// Path returns the store's file.
func (s *Store) Path() string { return s.path }

// RealPath returns dir absolute with every symlink resolved: the key a project is recorded
// under, so that the same folder reached two ways is one project.
func RealPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust: project %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("trust: project %q: %w", dir, err)
	}
	return real, nil
}

// load reads the store; a missing file is an empty store.
func (s *Store) load() (*file, error) {
	f := &file{Version: 1, Projects: map[string]*Record{}}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", s.path, err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("trust: %s: %w: %v (remove or fix it, then trust your projects again)", s.path, ErrCorrupt, err)
	}
	if f.Projects == nil {
		f.Projects = map[string]*Record{}
	}
	for dir, r := range f.Projects {
		if r == nil {
			return nil, fmt.Errorf("trust: %s: %w: project %q has no record", s.path, ErrCorrupt, dir)
		}
		slices.Sort(r.Digests) // Holds searches it; a hand-edited file may not be sorted
	}
	return f, nil
}

// lockDir makes the store's folder (0700) and takes the store's lock: the read-modify-write
// of Trust and Untrust runs under it, so two agentpool processes trusting two projects at
// once keep both records.
func (s *Store) lockDir() (func(), error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	unlock, err := lockedfile.MutexAt(s.path + ".lock").Lock()
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	return unlock, nil
}

// save writes f atomically: a temporary file in the same folder, 0600 and synced, renamed
// over the store, so a reader sees the old store or the new one, never half of either.
func (s *Store) save(f *file) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := renameio.WriteFile(s.path, append(data, '\n')); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// Lookup returns the record of the project at dir (a real path, see RealPath), or nil.
func (s *Store) Lookup(dir string) (*Record, error) {
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	return f.Projects[dir], nil
}

// Trust records the project at dir (a real path) as trusted with the declarations whose
// digests are given, replacing any earlier record.
func (s *Store) Trust(dir string, digests []string, now time.Time) error {
	unlock, err := s.lockDir()
	if err != nil {
		return err
	}
	defer unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	d := slices.Clone(digests)
	slices.Sort(d)
	f.Projects[dir] = &Record{Digests: slices.Compact(d), TrustedAt: now.UTC()}
	return s.save(f)
}

// Untrust removes the record of the project at dir (a real path) and reports whether there
// was one.
func (s *Store) Untrust(dir string) (bool, error) {
	unlock, err := s.lockDir()
	if err != nil {
		return false, err
	}
	defer unlock()
	f, err := s.load()
	if err != nil {
		return false, err
	}
	if _, ok := f.Projects[dir]; !ok {
		return false, nil
	}
	delete(f.Projects, dir)
	return true, s.save(f)
}

// Check returns the status of the project at dir (a real path) whose declarations are now
// decls.
func (s *Store) Check(dir string, decls []Decl) (Verdict, error) {
	r, err := s.Lookup(dir)
	if err != nil {
		return Verdict{Status: Untrusted}, err
	}
	return r.Verdict(decls), nil
}
