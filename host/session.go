package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/agentpool/agentpool/ext"
)

// OpenSession registers, at the session's scope, the session's own instances of what is
// stateful: every session-scoped server (its own process, its own state) and, as one
// capability named "skill-servers" (a skill.Servers), the MCP servers the skills declare,
// listed as "<skill>__<tool>" and started when first listed. The skills themselves (catalogue,
// load_skill, commands) stay the pool's skill manager, shared by every session. A trusted
// project's skills are among them; their servers must be ones the user trusted (see the
// package doc, "Trust"). Close the
// session with CloseSession (or Registry.CloseScope): its processes end then, not after the
// pool's idle timeout.
//
// Each call leases its servers in a pool partition of its own ("<session id>#<n>"): a session
// id used again after its close must never find the closed session's process and state.
//
// On error, the capabilities this call registered are unregistered and closed again.
func (h *Host) OpenSession(ctx context.Context, sessionID string) error {
	h.reloadMu.RLock() // a session opens with one config, the one before a reload or after
	defer h.reloadMu.RUnlock()
	_, err := h.openSession(ctx, sessionID)
	return err
}

// openSession is OpenSession, returning the session's pool partition.
func (h *Host) openSession(ctx context.Context, sessionID string) (_ string, err error) {
	if sessionID == "" {
		return "", fmt.Errorf("open session: empty session id")
	}
	slot := ext.Scope{SessionID: sessionID}
	partition := sessionID + "#" + strconv.FormatUint(h.sessionSeq.Add(1), 10)
	// Recorded before anything can close the session's capability (a concurrent CloseScope),
	// which forgets it again.
	h.sessMu.Lock()
	if h.partitions == nil {
		h.partitions = map[string][]string{}
	}
	h.partitions[sessionID] = append(h.partitions[sessionID], partition)
	h.sessMu.Unlock()
	var added []ext.Capability
	defer func() {
		if err == nil {
			return
		}
		for _, c := range added {
			err = errors.Join(err, h.Registry.Unregister(ext.LevelSession, slot, c.Name()), c.Close(context.WithoutCancel(ctx)))
		}
		h.forgetPartition(sessionID, partition)
	}()
	register := func(c ext.Capability, opts ...ext.RegisterOption) error {
		if err := h.Registry.Register(c, ext.LevelSession, slot, opts...); err != nil {
			_ = c.Close(ctx)
			return fmt.Errorf("open session %q: %w", sessionID, err)
		}
		added = append(added, c)
		return nil
	}
	ss := &sessionSkills{pool: h.Pool, partition: partition, forget: func() { h.forgetPartition(sessionID, partition) }}
	ss.Servers = h.Skills.NewServers(skillServers, h.skillServerFactory(ss, partition))
	if err := register(ss, localOrigin); err != nil {
		return "", err
	}
	for _, name := range h.sessionServers {
		c, err := h.newServer(name, h.Config.MCPServers[name], partition)
		if err != nil {
			return "", err
		}
		if err := register(c); err != nil {
			return "", err
		}
	}
	return partition, nil
}

// CloseSession ends a session opened with OpenSession: it closes the capabilities of its scope
// (Registry.CloseScope) and ends its pool partitions, so that when it returns every process
// the session started has ended and been reaped (unless ctx ended first). A later OpenSession
// of the same id starts fresh. Closing a session that is not open closes nothing.
func (h *Host) CloseSession(ctx context.Context, sessionID string) error {
	h.reloadMu.RLock() // a reload replacing the session's servers finishes first
	defer h.reloadMu.RUnlock()
	return h.closeSession(ctx, sessionID)
}

// closeSession is CloseSession, with the caller holding reloadMu.
func (h *Host) closeSession(ctx context.Context, sessionID string) error {
	if sessionID == "" {
		return fmt.Errorf("close session: empty session id")
	}
	// Taken before the scope closes: closing "skill-servers" forgets its partition, and the
	// partitions must still be ended again below, after every capability of the scope has
	// released its clients.
	h.sessMu.Lock()
	partitions := h.partitions[sessionID]
	delete(h.partitions, sessionID)
	delete(h.sessionAgents, sessionID)
	h.sessMu.Unlock()
	err := h.Registry.CloseScope(ctx, ext.Scope{SessionID: sessionID})
	for _, p := range partitions {
		err = errors.Join(err, h.Pool.ClosePartition(ctx, p))
	}
	return err
}

// forgetPartition drops partition from the partitions recorded for sessionID, once the session's
// "skill-servers" has closed (by CloseSession or Registry.CloseScope): a host whose sessions are
// closed by CloseScope must not keep one entry for each.
func (h *Host) forgetPartition(sessionID, partition string) {
	h.sessMu.Lock()
	defer h.sessMu.Unlock()
	ps := slices.DeleteFunc(h.partitions[sessionID], func(p string) bool { return p == partition })
	if len(ps) == 0 {
		delete(h.partitions, sessionID)
		delete(h.sessionAgents, sessionID)
	} else {
		h.partitions[sessionID] = ps
	}
}
