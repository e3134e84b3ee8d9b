package view

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

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
	// command whose qualified names were all taken) and for a server whose name the contested
	// one is under but which lists no such tool. For a tool it is the served name.
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

// MaxToolName is the longest tool name a view serves, in bytes.
const MaxToolName = 64

// hashLen is the length of the hash suffix ServedName gives a name it shortens: 8 hex digits,
// after a "_".
const hashLen = 8

// ValidToolName reports whether name matches ^[a-zA-Z0-9_-]{1,64}$, the tool names the
// Anthropic and OpenAI APIs and strict MCP clients accept. Every name a View serves does.
func ValidToolName(name string) bool {
	if name == "" || len(name) > MaxToolName {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// ServedName maps a tool name as a capability lists it (its qualified name: "<server>__<tool>",
// a plugin's "<plugin>.<server>__<tool>", or a bare upstream name) to a name ValidToolName
// accepts. A valid name is itself. Otherwise each character outside [a-zA-Z0-9_-] becomes "_"
// ("deploy.api__read_graph" → "deploy_api__read_graph"), and a result that is empty or longer
// than MaxToolName is shortened around "_" and 8 hex digits of the SHA-256 of the qualified
// name, cutting the namespace and keeping the tool's own name where it fits
// ("<namespace cut>_<hash>__<tool>", 64 bytes). ServedName is a pure function; a View also
// keeps two qualified names from one served name (see View.Tools).
func ServedName(qualified string) string {
	if ValidToolName(qualified) {
		return qualified
	}
	s := sanitize(qualified)
	if s == "" || len(s) > MaxToolName {
		return hashedName(qualified, 0)
	}
	return s
}

// sanitize replaces each character outside [a-zA-Z0-9_-] (a byte of invalid UTF-8 counts as
// one) with "_".
func sanitize(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		if r < utf8.RuneSelf && nameByte(byte(r)) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// hashedName is sanitize(qualified) shortened to leave room for "_" and 8 hex digits of the
// SHA-256 of qualified (with salt, when not 0, for the rare name whose first hash is taken).
// The hash goes before the first "__", and the namespace is what is cut, so the tool's own
// name stays readable: "<namespace cut>_<hash>__<tool>"; a name with no "__", or whose tool
// part leaves no room, is cut at its end instead: "<name cut>_<hash>".
func hashedName(qualified string, salt int) string {
	s := sanitize(qualified)
	h := sha256.New()
	h.Write([]byte(qualified))
	if salt != 0 {
		fmt.Fprintf(h, "\x00%d", salt)
	}
	suffix := "_" + hex.EncodeToString(h.Sum(nil))[:hashLen]
	room := MaxToolName - len(suffix)
	if i := strings.Index(s, ext.ToolSep); i >= 0 && len(s)-i <= room {
		return s[:min(i, room-(len(s)-i))] + suffix + s[i:]
	}
	return s[:min(len(s), room)] + suffix
}

// servedNames assigns each of a view's distinct qualified names its served name. A valid name
// keeps itself; a mapped one gets ServedName, unless a valid name or another mapped name has
// that too, when it gets hashedName (salted until free). The result depends only on the set
// of names, not their order, and its values are distinct.
func servedNames(qualified []string) map[string]string {
	out := make(map[string]string, len(qualified))
	taken := make(map[string]bool, len(qualified))
	var mapped []string
	for _, q := range qualified {
		if ValidToolName(q) {
			out[q] = q
			taken[q] = true
		} else {
			mapped = append(mapped, q)
		}
	}
	if len(mapped) == 0 {
		return out
	}
	slices.Sort(mapped)
	first := make(map[string]int, len(mapped))
	for _, q := range mapped {
		first[ServedName(q)]++
	}
	var rest []string
	for _, q := range mapped {
		if s := ServedName(q); first[s] == 1 && !taken[s] {
			out[q] = s
			taken[s] = true
		} else {
			rest = append(rest, q)
		}
	}
	for _, q := range rest {
		s := hashedName(q, 0)
		for salt := 1; taken[s]; salt++ {
			s = hashedName(q, salt)
		}
		out[q] = s
		taken[s] = true
	}
	return out
}
