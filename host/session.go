package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
)

// OpenSession registers, at the session's scope, a private instance of every session-scoped
// server (its own process, its own state). Close the session with Registry.CloseScope.
//
// On error, the servers this call registered are unregistered and closed again.
func (h *Host) OpenSession(ctx context.Context, sessionID string) (err error) {
	if sessionID == "" {
		return fmt.Errorf("open session: empty session id")
	}
	slot := ext.Scope{SessionID: sessionID}
	var added []*mcpcap.Cap
	defer func() {
		if err == nil {
			return
		}
		for _, c := range added {
			err = errors.Join(err, h.Registry.Unregister(ext.LevelSession, slot, c.Name()), c.Close(context.WithoutCancel(ctx)))
		}
	}()
	for _, name := range h.sessionServers {
		c, err := h.newServer(name, h.Config.MCPServers[name], sessionID)
		if err != nil {
			return err
		}
		if err := h.Registry.Register(c, ext.LevelSession, slot); err != nil {
			_ = c.Close(ctx)
			return fmt.Errorf("open session %q: %w", sessionID, err)
		}
		added = append(added, c)
	}
	return nil
}
