package pin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
)

// A pin file is two JSON values, one after the other: on its first line the record's digest
// index, then the record itself, indented. A listing is compared with the index alone; the
// record, which holds each definition's full text for its diffs, is decoded only when
// something drifted, for a change, and for `agentpool pins list`. A file of one value (the
// record) is read as it is, and written with its index at its next change.

// indexFormat is the format field of the index line; a file that does not start with it is
// a record alone.
const indexFormat = 2

var indexPrefix = []byte(`{"format":2,`)

// index is what a listing is compared with: the record's kinds listed and the digests of its
// pinned and pending definitions, by ID.
type index struct {
	Format int `json:"format"`
	// Size is the file's length in bytes, this line included: a torn or extended file is
	// corrupt, and the clean listings after it are not trusted (clean.go).
	Size int `json:"size,omitempty"`
	// Clean is the record's Clean, first: a listing that matches reads no further.
	Clean   map[string]string `json:"clean,omitempty"`
	Server  string            `json:"server"`
	Origin  string            `json:"origin"`
	Listed  []string          `json:"listed,omitempty"`
	Pinned  map[string]string `json:"pinned"`
	Pending map[string]string `json:"pending,omitempty"`
	Removed []string          `json:"removed,omitempty"`
	// Raw are the raw digests of the pinned definitions that have one, by ID.
	Raw map[string]string `json:"raw,omitempty"`
}

func indexOf(r *Record) index {
	digests := func(m map[string]Definition) map[string]string {
		out := make(map[string]string, len(m))
		for id, d := range m {
			out[id] = d.Digest
		}
		return out
	}
	x := index{Format: indexFormat, Clean: r.Clean, Server: r.Server, Origin: r.Origin, Listed: r.Listed,
		Pinned: digests(r.Pinned), Removed: r.Removed}
	if len(r.Pending) > 0 {
		x.Pending = digests(r.Pending)
	}
	for id, d := range r.Pinned {
		if d.Raw != "" {
			if x.Raw == nil {
				x.Raw = make(map[string]string, len(r.Pinned))
			}
			x.Raw[id] = d.Raw
		}
	}
	return x
}

// record returns the record x indexes with each definition's kind, name and digest only.
func (x index) record() *Record {
	stubs := func(m, raw map[string]string) map[string]Definition {
		if m == nil {
			return nil
		}
		out := make(map[string]Definition, len(m))
		for id, digest := range m {
			d := Definition{Digest: digest, Raw: raw[id]}
			var key string
			d.Kind, key, _ = strings.Cut(id, "/")
			if d.Kind == KindTemplate {
				d.URI = key // its name is in the record
			} else {
				d.Name = key
			}
			out[id] = d
		}
		return out
	}
	return &Record{Server: x.Server, Origin: x.Origin, Listed: x.Listed, Clean: x.Clean, Pinned: stubs(x.Pinned, x.Raw),
		Pending: stubs(x.Pending, nil), Removed: x.Removed, partial: true}
}

// agrees says whether x is the index of r.
func (x index) agrees(r *Record) bool {
	y := indexOf(r)
	return x.Server == y.Server && x.Origin == y.Origin && slices.Equal(x.Listed, y.Listed) &&
		maps.Equal(x.Pinned, y.Pinned) && maps.Equal(x.Pending, y.Pending) && slices.Equal(x.Removed, y.Removed) && maps.Equal(x.Raw, y.Raw) &&
		maps.Equal(x.Clean, y.Clean)
}

// encodeFile returns the file of r: its index line, then r indented.
func encodeFile(r *Record) ([]byte, error) {
	r.pruneClean()
	body, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	x := indexOf(r)
	var head []byte
	for { // the size counts its own digits: at most three rounds
		if head, err = json.Marshal(x); err != nil {
			return nil, err
		}
		size := len(head) + 1 + len(body) + 1
		if size == x.Size {
			break
		}
		x.Size = size
	}
	out := make([]byte, 0, len(head)+len(body)+2)
	out = append(append(out, head...), '\n')
	return append(append(out, body...), '\n'), nil
}

// splitFile returns a file's index line and record; no index when the file has none.
func splitFile(data []byte) (head, body []byte, indexed bool) {
	if !bytes.HasPrefix(data, indexPrefix) {
		return nil, data, false
	}
	head, body, _ = bytes.Cut(data, []byte{'\n'})
	return head, body, true
}

// decodeIndex decodes an index line.
func decodeIndex(head []byte) (index, error) {
	if x, ok := scanIndex(head); ok {
		return x, nil
	}
	var x index
	if err := json.Unmarshal(head, &x); err != nil {
		return x, fmt.Errorf("index line: %v", err)
	}
	return x, nil
}

// heads holds the buffers readHead reads into: a 500-tool index line is about 100 KB, and a
// fresh buffer that size is cleared on every allocation.
var heads = sync.Pool{New: func() any { return new([]byte) }}

// readHead returns the start of the file p through its index line, or the whole file when it
// has no index line, in a buffer from heads that the caller returns with putHead when done,
// and the file's size.
func readHead(p string) (data []byte, size int64, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	data, err = readLine(f)
	return data, info.Size(), err
}

// readLine returns f's start through its first line when f starts with an index line, else
// all of f, in a buffer from heads.
func readLine(f *os.File) ([]byte, error) {
	bp := heads.Get().(*[]byte)
	buf := (*bp)[:0]
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) >= len(indexPrefix) && !bytes.HasPrefix(buf, indexPrefix) {
			rest, err := io.ReadAll(f)
			return append(buf, rest...), err
		}
		if bytes.IndexByte(buf[len(buf)-n:], '\n') >= 0 || err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
	}
}

// putHead returns a buffer readHead returned to heads.
func putHead(buf []byte) {
	if cap(buf) <= 4<<20 {
		heads.Put(&buf)
	}
}
