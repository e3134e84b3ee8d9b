package view

import (
	"cmp"
	"fmt"

	"github.com/agentpool/agentpool/ext"
)

// Collision is a name two sources both offered, and how it was resolved.
type Collision struct {
	// Kind is "tool", "command" or "skill".
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Winner Claim  `json:"winner"`
	Loser  Claim  `json:"loser"`
}

// Claim is one side of a Collision.
type Claim struct {
	Capability string     `json:"capability"`
	Origin     ext.Origin `json:"origin"`
	// ReachableAs is the name that reaches this side: the contested name for the winner, a
	// qualified name for a loser, or "" for a loser left out (a shadowed skill, or a tool or
	// command whose qualified names were all taken).
	ReachableAs string `json:"reachable_as"`
	// Path is the file a local command came from, when known.
	Path string `json:"path,omitempty"`
}

func (c Collision) String() string {
	loser := "left out"
	if c.Loser.ReachableAs != "" {
		loser = "reachable as " + c.Loser.ReachableAs
	}
	return fmt.Sprintf("%s %s: %s wins over %s (%s)", c.Kind, c.Name, describe(c.Winner), describe(c.Loser), loser)
}

func describe(c Claim) string {
	s := fmt.Sprintf("%s [%s]", c.Capability, c.Origin)
	if c.Path != "" {
		s += " " + c.Path
	}
	return s
}

// levelRank orders scope levels narrowest first: what a turn or an agent was given
// deliberately overrides what everyone in the pool sees.
func levelRank(l ext.ScopeLevel) int {
	return int(ext.LevelTurn) - int(l)
}

// precedes orders two capabilities for a contested name: origin, then scope level (narrowest
// first), then Visible order.
func precedes(a, b *member) int {
	return cmp.Or(
		cmp.Compare(a.reg.Origin.Rank(), b.reg.Origin.Rank()),
		cmp.Compare(levelRank(a.reg.Level), levelRank(b.reg.Level)),
		cmp.Compare(a.rank, b.rank),
	)
}

func claim(m *member, reachable string) Claim {
	return Claim{Capability: m.reg.Capability.Name(), Origin: m.reg.Origin, ReachableAs: reachable}
}
