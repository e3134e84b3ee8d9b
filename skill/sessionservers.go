package skill

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/ext"
)

// Servers is one session's instances of the skills' own MCP servers, as a capability of that
// session: the catalogue (skills, instructions, load_skill, commands) stays the Manager's and
// is shared by every session, while a skill's server is stateful like any other and belongs to
// the session that uses it. Make one with Manager.NewServers for each session, register it at
// the session's scope and close it with the session.
//
// It lists the tools of the skills' servers as the manager would ("<skill>__<tool>", filtered
// by each skill's allowed-tools), building each server through its factory when the tools are
// first listed; it follows the manager's reloads (a skill gone or redeclared closes its
// servers here too) and passes on the manager's tools_changed and its servers' own under its
// name. Close closes every server it built.
type Servers struct {
	ext.Notifier

	name    string
	m       *Manager
	kids    *children
	unwatch func()

	closed    atomic.Bool
	closeOnce sync.Once
	closeDone chan struct{}
	closeErr  error
}

var (
	_ ext.Capability       = (*Servers)(nil)
	_ ext.ToolProvider     = (*Servers)(nil)
	_ ext.Composite        = (*Servers)(nil)
	_ ext.ChangeObservable = (*Servers)(nil)
)

// NewServers returns a Servers named name whose servers are built by factory (nil builds none).
// It does no I/O.
func (m *Manager) NewServers(name string, factory ChildFactory) *Servers {
	s := &Servers{name: name, m: m, closeDone: make(chan struct{})}
	s.kids = newChildren(m, name, factory, s.Emit)
	s.unwatch = m.Observe(func(ev ext.ChangeEvent) {
		if ev.Kind == ext.ToolsChanged && !s.closed.Load() {
			s.Emit(ext.ChangeEvent{Capability: name, Kind: ext.ToolsChanged})
		}
	})
	m.sessMu.Lock()
	if m.sessions == nil {
		m.sessions = map[*children]struct{}{}
	}
	m.sessions[s.kids] = struct{}{}
	m.sessMu.Unlock()
	return s
}

// Name returns the capability name given to NewServers.
func (s *Servers) Name() string { return s.name }

// check reports ErrClosed after Close (its own or the manager's), or the context's error.
func (s *Servers) check(ctx context.Context) error {
	if s.closed.Load() || s.m.closed.Load() {
		return fmt.Errorf("skill servers %q: %w", s.name, ext.ErrClosed)
	}
	return ctx.Err()
}

// Tools returns the tools of the skills' servers, "<skill>__<tool>", filtered by each skill's
// allowed-tools. A server that fails to list its tools is left out (and logged).
func (s *Servers) Tools(ctx context.Context) ([]ext.ToolEntry, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return s.kids.tools(ctx), nil
}

// CallTool calls a tool "<skill>__<tool>" of a skill's server. An unknown tool, or one the
// skill's allowed-tools excludes, is ErrNotFound.
func (s *Servers) CallTool(ctx context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return s.kids.call(ctx, call)
}

// Children returns the servers built so far (ext.Composite); it builds none.
func (s *Servers) Children() []ext.Capability {
	if s.closed.Load() {
		return nil
	}
	return s.kids.capabilities()
}

// Diagnostics returns the failures to build a skill's server in this session.
func (s *Servers) Diagnostics() []Diagnostic { return s.kids.diagnostics() }

// Close stops following the manager and closes every server built. It is idempotent and safe
// for concurrent use; a Close that finds another at work waits for it until its ctx ends.
func (s *Servers) Close(ctx context.Context) error {
	first := false
	s.closeOnce.Do(func() {
		first = true
		s.closed.Store(true)
	})
	if !first {
		select {
		case <-s.closeDone:
			return s.closeErr
		case <-ctx.Done():
			return fmt.Errorf("skill servers %q: close: %w", s.name, ctx.Err())
		}
	}
	s.unwatch()
	s.m.sessMu.Lock()
	delete(s.m.sessions, s.kids)
	s.m.sessMu.Unlock()
	if err := s.kids.closeAll(ctx); err != nil {
		s.closeErr = fmt.Errorf("skill servers %q: %w", s.name, err)
	}
	close(s.closeDone)
	return s.closeErr
}

// sessionSets returns the children of every open Servers.
func (m *Manager) sessionSets() []*children {
	m.sessMu.Lock()
	defer m.sessMu.Unlock()
	out := make([]*children, 0, len(m.sessions))
	for k := range m.sessions {
		out = append(out, k)
	}
	return out
}

// childSets returns the manager's own children and every open Servers'.
func (m *Manager) childSets() []*children { return append([]*children{m.kids}, m.sessionSets()...) }
