package manifest

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"
)

// Bounds applied by NewStore to zero Options fields.
const (
	// DefaultMaxEntries is how many manifests the cache keeps.
	DefaultMaxEntries = 256
	// DefaultMaxBytes is how many bytes the cache's files take in all.
	DefaultMaxBytes = 32 << 20
)

// Manifest is one cache file: what a server listed.
type Manifest struct {
	// Server is the server's name, for a person reading the folder.
	Server string `json:"server"`
	// Tools, Prompts and Templates are the server's listings as it listed them; each is nil
	// until that kind was listed. ToolsListed is when the tools were.
	Tools       []ext.ToolEntry             `json:"tools"`
	ToolsListed time.Time                   `json:"tools_listed,omitzero"`
	Prompts     []ext.CommandEntry          `json:"prompts"`
	Templates   []ext.ResourceTemplateEntry `json:"resource_templates"`
}

// Options bound a Store; nil or zero fields mean the defaults.
type Options struct {
	MaxEntries int
	MaxBytes   int64
	// Logger gets the line about a corrupt file (warn) and failed reads and writes (debug).
	Logger *slog.Logger
}

// Store is the manifest cache in one folder. It does no I/O until used and is safe for
// concurrent use, by several processes too.
type Store struct {
	dir        string
	maxEntries int
	maxBytes   int64
	log        *slog.Logger
	corrupt    sync.Map // path → struct{}: logged once
}

// DefaultDir returns the cache's folder: $XDG_CACHE_HOME/agentpool/manifests, else
// ~/.cache/agentpool/manifests (os.UserCacheDir).
func DefaultDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("manifest: no cache folder: %w", err)
	}
	return filepath.Join(dir, "agentpool", "manifests"), nil
}

// NewStore returns the cache kept in dir. o is copied; nil means the defaults.
func NewStore(dir string, o *Options) *Store {
	s := &Store{dir: dir, maxEntries: DefaultMaxEntries, maxBytes: DefaultMaxBytes, log: slog.New(slog.DiscardHandler)}
	if o != nil {
		if o.MaxEntries > 0 {
			s.maxEntries = o.MaxEntries
		}
		if o.MaxBytes > 0 {
			s.maxBytes = o.MaxBytes
		}
		if o.Logger != nil {
			s.log = o.Logger
		}
	}
	return s
}

// Dir returns the cache's folder.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(key string) (string, error) {
	if _, err := hex.DecodeString(key); err != nil || key == "" {
		return "", fmt.Errorf("manifest: key %q is not a digest", key)
	}
	return filepath.Join(s.dir, key+".json"), nil
}

// Load returns the manifest of key and touches its file (it was used); nil when there is
// none, or the file is corrupt (logged once).
func (s *Store) Load(key string) (*Manifest, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	m, err := s.read(p)
	if m != nil {
		now := time.Now()
		_ = os.Chtimes(p, now, now) // recency for eviction; a file evicted meanwhile is fine
	}
	return m, err
}

// read returns the manifest in p: nil when none or corrupt.
func (s *Store) read(p string) (*Manifest, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Server == "" {
		if err == nil {
			err = errors.New("no server name")
		}
		if _, logged := s.corrupt.LoadOrStore(p, struct{}{}); !logged {
			s.log.Warn("manifest cache: corrupt file ignored; the next listing rewrites it", "file", p, "err", err)
		}
		return nil, nil
	}
	return &m, nil
}

// Update reads key's manifest (an empty one for server when there is none or it is corrupt),
// hands it to fn and writes it when fn reports a change, then removes the least recently
// used files beyond the bounds; all under the folder's lock.
func (s *Store) Update(key, server string, fn func(m *Manifest) (changed bool)) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	unlock, err := lockedfile.MutexAt(filepath.Join(s.dir, ".lock")).Lock()
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	defer unlock()
	m, err := s.read(p)
	if err != nil {
		return err
	}
	if m == nil {
		m = &Manifest{}
	}
	m.Server = server
	if !fn(m) {
		return nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("manifest: %s: %w", p, err)
	}
	if err := renameio.WriteFile(p, append(data, '\n')); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	s.corrupt.Delete(p)
	return s.evict()
}

// evict removes the least recently used files until the bounds hold. The caller holds the
// folder's lock.
func (s *Store) evict() error {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	type file struct {
		name string
		mod  time.Time
		size int64
	}
	var files []file
	var total int64
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, file{e.Name(), fi.ModTime(), fi.Size()})
		total += fi.Size()
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for len(files) > 0 && (len(files) > s.maxEntries || total > s.maxBytes) {
		f := files[0]
		files = files[1:]
		total -= f.size
		if err := os.Remove(filepath.Join(s.dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("manifest: %w", err)
		}
	}
	return nil
}
