package pin

import (
	"bytes"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// A clean listing is one that matched the pins of its kind exactly: nothing changed, new or
// removed. The record keeps, by kind, the digest of the last clean listing (listing.digest)
// with a digest of the pins it matched, first in the file's index line, so that a process
// listing the same again reads no more than that and digests each entry's raw fields once:
// no index to decode, no definitions to compare. A clean listing stops counting as soon as
// the pins of its kind change (an approval, a reset) or something of its kind is pending:
// the file is written without it then (pruneClean, at every write).

// cleanFor says whether r records listing (a listing.digest) as clean for kind.
func (r *Record) cleanFor(kind, listing string) bool {
	if r == nil {
		return false
	}
	v, ok := r.Clean[kind]
	return ok && strings.HasPrefix(v, listing+":")
}

// setClean records listing as clean for kind against r's pins now.
func (r *Record) setClean(kind, listing string) {
	if r.Clean == nil {
		r.Clean = map[string]string{}
	}
	r.Clean[kind] = listing + ":" + pinsSum(r, kind)
}

// pruneClean forgets each clean listing whose kind has pins other than it matched, or
// something pending or removed.
func (r *Record) pruneClean() {
	for kind, v := range r.Clean {
		_, sum, _ := strings.Cut(v, ":")
		if sum != pinsSum(r, kind) || pendingOf(r, kind) {
			delete(r.Clean, kind)
		}
	}
	if len(r.Clean) == 0 {
		r.Clean = nil
	}
}

// pinsSum is a digest of r's pins of kind: their IDs and digests.
func pinsSum(r *Record, kind string) string {
	var rd rawDigester
	for _, id := range slices.Sorted(maps.Keys(r.Pinned)) {
		if d := r.Pinned[id]; d.Kind == kind {
			rd.str(id)
			rd.str(d.Digest)
		}
	}
	return rd.sum()
}

// pendingOf says whether r has something of kind pending or removed.
func pendingOf(r *Record, kind string) bool {
	for _, d := range r.Pending {
		if d.Kind == kind {
			return true
		}
	}
	for _, id := range r.Removed {
		if d, ok := r.Pinned[id]; ok && d.Kind == kind {
			return true
		}
	}
	return false
}

// readClean returns a shallow record of the file p — its clean listings alone — when its index
// line records listing as clean for kind and the file's size (from the same open file) is the
// one the line records; nil otherwise, or when p cannot be read (the caller reads it then, and
// meets the error). It reads the start of the file only.
func readClean(p, kind, listing string) *Record {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var buf [1024]byte // three kinds' clean listings take about 450 bytes
	n, _ := io.ReadFull(f, buf[:])
	size, clean := cleanOf(buf[:n])
	r := &Record{Clean: clean, shallow: true}
	if !r.cleanFor(kind, listing) {
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Size() != int64(size) {
		return nil // torn or extended: read whole, it is corrupt
	}
	return r
}

// cleanPrefix starts an index line that records the file's size and clean listings (index's
// field order).
var cleanPrefix = []byte(`{"format":2,"size":`)

// cleanOf reads the file's size and the clean listings at the start of an index line,
// without reading the rest.
func cleanOf(head []byte) (size int, clean map[string]string) {
	if !bytes.HasPrefix(head, cleanPrefix) {
		return 0, nil
	}
	s := indexScanner{b: head, i: len(cleanPrefix)}
	size = s.int()
	if s.bad || !bytes.HasPrefix(head[s.i:], []byte(`,"clean":`)) {
		return 0, nil
	}
	s.i += len(`,"clean":`)
	m := s.strMap(nil)
	if s.bad {
		return 0, nil
	}
	return size, m
}
