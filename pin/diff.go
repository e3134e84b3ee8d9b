package pin

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Edit is one step of a word-level diff: Op '=' keeps Text, '-' removes it, '+' adds it.
type Edit struct {
	Op   byte   `json:"op"`
	Text string `json:"text"`
}

// maxDiffWords bounds the words a word diff aligns (its cost is their product); longer texts
// are shown as one removal and one addition.
const maxDiffWords = 4000

// WordDiff returns the edits that turn old into new, word by word (words are split at white
// space), shortest first; consecutive edits of one kind are joined with a space.
func WordDiff(old, new string) []Edit {
	a, b := strings.Fields(old), strings.Fields(new)
	if len(a) > maxDiffWords || len(b) > maxDiffWords {
		return joinEdits([]Edit{{'-', old}, {'+', new}})
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []Edit
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, Edit{'=', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, Edit{'-', a[i]})
			i++
		default:
			out = append(out, Edit{'+', b[j]})
			j++
		}
	}
	return joinEdits(out)
}

func joinEdits(in []Edit) []Edit {
	var out []Edit
	for _, e := range in {
		if e.Text == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Op == e.Op {
			out[n-1].Text += " " + e.Text
			continue
		}
		out = append(out, e)
	}
	return out
}

// FormatWordDiff writes edits as text, removals as [-…-] and additions as {+…+}.
func FormatWordDiff(edits []Edit) string {
	var parts []string
	for _, e := range edits {
		switch e.Op {
		case '-':
			parts = append(parts, "[-"+e.Text+"-]")
		case '+':
			parts = append(parts, "{+"+e.Text+"+}")
		default:
			parts = append(parts, e.Text)
		}
	}
	return strings.Join(parts, " ")
}

// SchemaChange is one difference between two JSON documents, at a JSON Pointer (RFC 6901).
type SchemaChange struct {
	// Op is "added", "removed" or "changed".
	Op   string          `json:"op"`
	Path string          `json:"path"`
	Old  json.RawMessage `json:"old,omitempty"`
	New  json.RawMessage `json:"new,omitempty"`
}

// SchemaDiff returns where the JSON documents old and new differ, in path order: a member or
// element only in new is "added", only in old "removed", and a value that differs in kind or
// as a scalar is "changed". Text that is not JSON is compared as a string.
func SchemaDiff(old, new json.RawMessage) []SchemaChange {
	var out []SchemaChange
	diffValue(decodeLoose(old), decodeLoose(new), "", &out)
	return out
}

func decodeLoose(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	return v
}

func diffValue(a, b any, path string, out *[]SchemaChange) {
	switch {
	case a == nil && b == nil:
		return
	case a == nil:
		*out = append(*out, SchemaChange{Op: "added", Path: path, New: enc(b)})
		return
	case b == nil:
		*out = append(*out, SchemaChange{Op: "removed", Path: path, Old: enc(a)})
		return
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range x {
					if !yield(k) {
						return
					}
				}
				for k := range y {
					if _, both := x[k]; !both && !yield(k) {
						return
					}
				}
			})
			for _, k := range keys {
				diffValue(x[k], y[k], path+"/"+escapePointer(k), out)
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := range max(len(x), len(y)) {
				var ai, bi any
				if i < len(x) {
					ai = x[i]
				}
				if i < len(y) {
					bi = y[i]
				}
				diffValue(ai, bi, path+"/"+strconv.Itoa(i), out)
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, SchemaChange{Op: "changed", Path: path, Old: enc(a), New: enc(b)})
	}
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func enc(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}
