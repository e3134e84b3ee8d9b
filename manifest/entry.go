package manifest

import (
	"reflect"
	"sync"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// Entry is one server's manifest in a Store: what a capability reads at start and records on
// each listing (mcpcap.Manifests). It remembers what it last read or wrote, so a listing
// that repeats it writes nothing. Safe for concurrent use.
type Entry struct {
	s           *Store
	key, server string

	mu   sync.Mutex
	last *Manifest // as last read or written; nil until then
}

// Entry returns the entry of the server declared with digest key. It does no I/O.
func (s *Store) Entry(key, server string) *Entry {
	return &Entry{s: s, key: key, server: server}
}

// Tools returns the tools the server listed last, as it named them, and when; ok is false
// when the cache has none for it.
func (e *Entry) Tools() (tools []ext.ToolEntry, listed time.Time, ok bool) {
	m, err := e.s.Load(e.key)
	if err != nil {
		e.s.log.Debug("manifest cache: not read", "server", e.server, "err", err)
	}
	e.mu.Lock()
	e.last = m
	e.mu.Unlock()
	if m == nil || m.Tools == nil {
		return nil, time.Time{}, false
	}
	return m.Tools, m.ToolsListed, true
}

// ListedTools records a tools listing of the server.
func (e *Entry) ListedTools(tools []ext.ToolEntry) {
	tools = orEmpty(tools)
	e.update(func(m *Manifest) bool {
		if m.Tools != nil && reflect.DeepEqual(m.Tools, tools) {
			return false
		}
		m.Tools, m.ToolsListed = tools, time.Now().UTC()
		return true
	}, func(m *Manifest) bool { return m.Tools != nil && reflect.DeepEqual(m.Tools, tools) })
}

// ListedPrompts records a prompts listing of the server.
func (e *Entry) ListedPrompts(prompts []ext.CommandEntry) {
	prompts = orEmpty(prompts)
	same := func(m *Manifest) bool { return m.Prompts != nil && reflect.DeepEqual(m.Prompts, prompts) }
	e.update(func(m *Manifest) bool {
		if same(m) {
			return false
		}
		m.Prompts = prompts
		return true
	}, same)
}

// ListedTemplates records a resource templates listing of the server.
func (e *Entry) ListedTemplates(templates []ext.ResourceTemplateEntry) {
	templates = orEmpty(templates)
	same := func(m *Manifest) bool { return m.Templates != nil && reflect.DeepEqual(m.Templates, templates) }
	e.update(func(m *Manifest) bool {
		if same(m) {
			return false
		}
		m.Templates = templates
		return true
	}, same)
}

// update applies fn to the stored manifest unless same says the last one known already
// holds the listing.
func (e *Entry) update(fn, same func(m *Manifest) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last != nil && same(e.last) {
		return
	}
	var wrote *Manifest
	err := e.s.Update(e.key, e.server, func(m *Manifest) bool {
		changed := fn(m)
		wrote = m
		return changed
	})
	if err != nil {
		e.s.log.Debug("manifest cache: not written", "server", e.server, "err", err)
		return
	}
	e.last = wrote
}

// orEmpty returns a copy of s (the caller may change s later), empty rather than nil: a
// listing of nothing is a listing.
func orEmpty[T any](s []T) []T {
	return append([]T{}, s...)
}
