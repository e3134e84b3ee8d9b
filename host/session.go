package host

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
)

// OpenSession registers, at the session's scope, a private instance of every session-scoped
// server (its own process, its own state). Close the session with Registry.CloseScope.
//
// Each call leases its servers in a pool partition of its own ("<session id>#<n>"): the pool
// keeps a released client for its idle timeout, and a session id used again after CloseScope
// must not find the closed session's process and state there.
//
// On error, the servers this call registered are unregistered and closed again.
func (h *Host) OpenSession(ctx context.Context, sessionID string) (err error) {
	if sessionID == "" {
		return fmt.Errorf("open session: empty session id")
	}
	slot := ext.Scope{SessionID: sessionID}
	partition := sessionID + "#" + strconv.FormatUint(h.sessionSeq.Add(1), 10)
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
		c, err := h.newServer(name, h.Config.MCPServers[name], partition)
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
