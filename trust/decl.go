package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentpool/agentpool/decl"
)

// Decl is one server a project declares: its declaration as written (decl.Server, ${VAR}
// references kept, never their values), where it is declared and the name it is registered
// under. Every field decides what would run, what would be connected to, or where a secret
// would be sent, so every field is digested.
type Decl struct {
	// Where is the file that declares it (a SKILL.md, an mcp.json, an agentpool.yaml).
	Where string `json:"where"`
	// Name is the server's name as agentpool would register it ("<skill>.<server>" for a
	// skill's own server).
	Name string `json:"name"`
	// Server is the declaration as written. The order of its EnvPassthrough does not matter.
	decl.Server
}

// Digest is a SHA-256 of every field of d, hex: equal for equal declarations, different when
// any field differs. JSON with sorted map keys is the canonical form.
func (d Decl) Digest() string {
	d.EnvPassthrough = slices.Sorted(slices.Values(d.EnvPassthrough))
	data, err := json.Marshal(d)
	if err != nil {
		// Only a static tool's input_schema can fail to marshal (a NaN): digest it as printed,
		// which still tells every such schema apart.
		d.Tools = slices.Clone(d.Tools)
		for i, t := range d.Tools {
			d.Tools[i].InputSchema = map[string]any{"unmarshalable": fmt.Sprint(t.InputSchema)}
		}
		data, _ = json.Marshal(d)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Digests returns the digest of each of decls.
func Digests(decls []Decl) []string {
	out := make([]string, len(decls))
	for i, d := range decls {
		out[i] = d.Digest()
	}
	return out
}

// Status is a project's standing with the user.
type Status int

const (
	// Untrusted projects have no record: nothing they declare runs.
	Untrusted Status = iota
	// Trusted projects have a record holding every declaration they have now.
	Trusted
	// Changed projects have a record, but declare something it does not hold (a new server,
	// or a changed command): nothing they declare runs until they are trusted again.
	Changed
)

// String returns "untrusted", "trusted" or "changed".
func (s Status) String() string {
	switch s {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed"
	}
	return "untrusted"
}

// Verdict is the result of checking a project against its record.
type Verdict struct {
	Status Status
	// New are the declarations the record does not hold (Changed only).
	New []Decl
}

// Holds reports whether the record holds the declaration whose digest is given. A nil record
// holds nothing.
func (r *Record) Holds(digest string) bool {
	if r == nil {
		return false
	}
	_, ok := slices.BinarySearch(r.Digests, digest)
	return ok
}

// Verdict checks decls against r (nil: no record).
func (r *Record) Verdict(decls []Decl) Verdict {
	if r == nil {
		return Verdict{Status: Untrusted}
	}
	var fresh []Decl
	for _, d := range decls {
		if !r.Holds(d.Digest()) {
			fresh = append(fresh, d)
		}
	}
	if len(fresh) > 0 {
		return Verdict{Status: Changed, New: fresh}
	}
	return Verdict{Status: Trusted}
}
