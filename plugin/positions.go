package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// positions knows the line of each key and list element of a JSON document, to depth
// maxDepth: "name", "plugins[2]", "plugins[2].source". encoding/json reports no positions
// but the offset of a syntax error; this walk of its tokens gives the rest.
type positions struct{ lines map[string]int }

const maxDepth = 3

// newPositions walks data; a document that does not parse keeps what was found before the
// problem.
func newPositions(data []byte) *positions {
	p := &positions{lines: map[string]int{}}
	type frame struct {
		object    bool
		path      string
		index     int
		expectKey bool
		key       string
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	start := func() int { // the offset where the next token starts
		off := int(dec.InputOffset())
		for off < len(data) && bytes.IndexByte([]byte(" \t\r\n,:"), data[off]) >= 0 {
			off++
		}
		return off
	}
	for {
		off := start()
		tok, err := dec.Token()
		if err != nil {
			return p
		}
		// The path of this value (or key), in its parent.
		var path string
		if n := len(stack); n > 0 {
			f := stack[n-1]
			if f.object && f.expectKey {
				if k, ok := tok.(string); ok {
					f.key, f.expectKey = k, false
					if n <= maxDepth {
						path = join(f.path, k)
						if _, seen := p.lines[path]; !seen {
							p.lines[path] = lineAt(data, off)
						}
					}
					continue
				}
			}
			if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
				stack = stack[:n-1]
				if m := len(stack); m > 0 && stack[m-1].object {
					stack[m-1].expectKey = true
				}
				continue
			}
			if f.object {
				path = join(f.path, f.key)
				f.expectKey = true
			} else {
				path = fmt.Sprintf("%s[%d]", f.path, f.index)
				if n <= maxDepth {
					p.lines[path] = lineAt(data, off)
				}
				f.index++
			}
		}
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			f := &frame{object: d == '{', path: path, expectKey: d == '{'}
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].expectKey = false // until this value closes
			}
			stack = append(stack, f)
		}
	}
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// line is the line of path, 0 when unknown.
func (p *positions) line(path string) int { return p.lines[path] }

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
