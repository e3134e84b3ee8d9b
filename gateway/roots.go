package gateway

import (
	"context"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsChanged forwards a client's notifications/roots/list_changed to the servers of its own
// session (session-scoped: they ask only this client for roots, so they should ask again). A
// pool-scoped server shared by sessions is not told: its roots requests go to whichever
// session has a call in flight to it (forward.go), so it sees a client's current roots at the
// next call that asks, and a notification from one client would make it ask while no call
// says which client to ask.
func (s *session) rootsChanged(ctx context.Context, _ *mcp.RootsListChangedRequest) {
	for _, r := range s.g.reg.Registrations(s.scope) {
		if r.Level != ext.LevelSession || r.Slot.SessionID != s.id {
			continue
		}
		w, ok := r.Capability.(ext.RootsWatcher)
		if !ok {
			continue
		}
		if err := w.RootsChanged(ctx); err != nil {
			s.g.log.Warn("roots change not forwarded", "session", s.id, "capability", r.Capability.Name(), "err", err)
		}
	}
}
