package pin

import (
	"slices"
	"strings"
)

// The states of a definition against its pin.
const (
	Changed = "changed" // pinned, and the server now says something else
	New     = "new"     // listed, never pinned
	Removed = "removed" // pinned, no longer listed
)

// Drift is one definition that differs from what was pinned.
type Drift struct {
	// Status is Changed, New or Removed.
	Status string `json:"status"`
	// Old is the pinned definition (nil when New), New the listed one (nil when Removed).
	Old *Definition `json:"old,omitempty"`
	New *Definition `json:"new,omitempty"`
	// Description is the word diff of the descriptions, Schema the diff of the schemas (a
	// tool's input schema, a prompt's arguments, a template's URI template) and Output of a
	// tool's output schema; set when Changed.
	Description []Edit         `json:"description,omitempty"`
	Schema      []SchemaChange `json:"schema,omitempty"`
	Output      []SchemaChange `json:"output,omitempty"`
}

// Def returns the definition the drift is about: New, or Old when removed.
func (d Drift) Def() Definition {
	if d.New != nil {
		return *d.New
	}
	return *d.Old
}

// Compare returns how listing differs from pinned (by Definition.ID), in ID order: every
// definition whose digest differs is Changed (with its diffs), every one not pinned is New,
// every pinned one not listed is Removed. Definitions of kinds listing does not hold are not
// reported removed: kinds names the kinds the listing is complete for.
func Compare(listing []Definition, pinned map[string]Definition, kinds ...string) []Drift {
	var out []Drift
	seen := make(map[string]bool, len(listing))
	for i := range listing {
		id := listing[i].ID()
		seen[id] = true
		old, ok := pinned[id]
		if ok && old.Digest == listing[i].Digest {
			continue
		}
		d := listing[i] // whole, when it was found by its raw digest
		d.fill()
		if ok {
			out = append(out, Diff(old, d))
		} else {
			out = append(out, Drift{Status: New, New: &d})
		}
	}
	for id, old := range pinned { // in ID order once sorted below
		if !seen[id] && slices.Contains(kinds, old.Kind) {
			out = append(out, Drift{Status: Removed, Old: &old})
		}
	}
	slices.SortStableFunc(out, func(a, b Drift) int { return strings.Compare(a.Def().ID(), b.Def().ID()) })
	return out
}

// Diff returns the Changed drift from old to new.
func Diff(old, new Definition) Drift {
	d := Drift{Status: Changed, Old: &old, New: &new}
	if old.Description != new.Description || old.Title != new.Title {
		d.Description = WordDiff(old.Title+" "+old.Description, new.Title+" "+new.Description)
	}
	d.Schema = SchemaDiff(old.Schema, new.Schema)
	d.Output = SchemaDiff(old.Output, new.Output)
	if ann := SchemaDiff(old.Annotations, new.Annotations); len(ann) > 0 {
		for i := range ann {
			ann[i].Path = "/annotations" + ann[i].Path
		}
		d.Schema = append(d.Schema, ann...)
	}
	return d
}
