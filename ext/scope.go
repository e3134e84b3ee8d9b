package ext

import "fmt"

// ScopeLevel is a visibility level: Pool > Session > Agent > Turn.
type ScopeLevel int

// The four scope levels, widest first.
const (
	LevelPool ScopeLevel = iota
	LevelSession
	LevelAgent
	LevelTurn
)

func (l ScopeLevel) String() string {
	switch l {
	case LevelPool:
		return "pool"
	case LevelSession:
		return "session"
	case LevelAgent:
		return "agent"
	case LevelTurn:
		return "turn"
	}
	return fmt.Sprintf("ScopeLevel(%d)", int(l))
}

// Scope identifies a caller (for queries) or a slot (for registration).
//
// As a query, it names who is asking: a session, an agent in it, a turn of that agent. Visibility
// walks pool → session → agent → turn and never upward.
//
// As a registration slot, the level decides which fields matter:
//   - LevelPool: none.
//   - LevelSession: SessionID.
//   - LevelAgent: AgentName, and SessionID when the agent is a dynamic subagent of that session
//     (visible only in that session); with SessionID empty the registration is static config
//     (visible to that agent in every session).
//   - LevelTurn: SessionID, AgentName and TurnID: visible only to a query naming all three.
type Scope struct {
	// PoolID names the pool. Empty means the registry's own pool.
	PoolID    string `json:"pool_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	AgentName string `json:"agent_name,omitempty"`
	TurnID    string `json:"turn_id,omitempty"`
}

func (s Scope) String() string {
	out := "pool"
	if s.PoolID != "" {
		out += "(" + s.PoolID + ")"
	}
	if s.SessionID != "" {
		out += "/session:" + s.SessionID
	}
	if s.AgentName != "" {
		out += "/agent:" + s.AgentName
	}
	if s.TurnID != "" {
		out += "/turn:" + s.TurnID
	}
	return out
}
