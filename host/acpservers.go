package host

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
)

// acpOrigin is where a client's session server is declared, for its pins (pin.Key).
const acpOrigin = "acp client"

// AddSessionServer adds an MCP server that a client declared for its own session (an ACP
// editor's session/new mcpServers) to the session sessionID, which OpenSession (or
// OpenAgentSession) opened: it is registered at the session's scope, leases its client in the
// session's pool partition, lists its tools as "<name>__<tool>", and ends with the session
// (CloseSession). It starts nothing itself: the server connects when first listed.
//
// The declaration is the user's own (the editor runs as the user), so no trust decision
// applies; it is validated as a config entry would be, and extensions.allowed_commands holds
// for it. Its definitions are pinned (with Options.Pins) under the config's pins key, else
// warn, keyed by its name and what it runs, not by the session: a client declaring the same
// server in every session is compared with what its first session saw. Its text is checked
// for hidden text under extensions.hidden_text. A name the session already sees (a configured server, "skills", a reserved name) is
// refused rather than shadowing it — in a session OpenAgentSession opened, the agent's own
// servers included. On error nothing is registered.
func (h *Host) AddSessionServer(ctx context.Context, sessionID, name string, spec decl.Server) error {
	h.reloadMu.RLock()
	defer h.reloadMu.RUnlock()
	key := "session " + sessionID + ": mcp server"
	servers := mcpcap.Servers{name: spec}
	if err := servers.Validate(key); err != nil {
		return err
	}
	spec = servers[name]
	spec.Scope = mcpcap.ScopeSession
	if err := mcpcap.CheckCommand(spec, key+"."+name, h.Current().Config.Extensions.AllowedCommands, ""); err != nil {
		return err
	}
	slot := ext.Scope{SessionID: sessionID}
	h.sessMu.Lock()
	partitions := h.partitions[sessionID]
	// A session of an agent sees that agent's servers too: their names are taken as well.
	seen := ext.Scope{SessionID: sessionID, AgentName: h.sessionAgents[sessionID]}
	h.sessMu.Unlock()
	if len(partitions) == 0 {
		return fmt.Errorf("%s.%s: the session is not open", key, name)
	}
	reserved := []string{skillServers, agentSkills, agentSkillServers, agentDefinition, projectCommands}
	taken := slices.Contains(reserved, name)
	for _, c := range h.Registry.Visible(seen) {
		taken = taken || c.Name() == name
	}
	if taken {
		return fmt.Errorf("%s.%s: the session has a capability of that name already", key, name)
	}
	st := h.Current()
	c, err := h.newServer(name, st.hiddenText(spec), partitions[len(partitions)-1], policyOf(st, spec, acpOrigin, decl.PinsWarn))
	if err != nil {
		return fmt.Errorf("%s.%s: %w", key, name, err)
	}
	if err := h.Registry.Register(c, ext.LevelSession, slot); err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("%s.%s: %w", key, name, err)
	}
	return nil
}
