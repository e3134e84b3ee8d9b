package pin

import "bytes"

// The index line is read on every process's first listing of a server, and encoding/json
// reads 500 tools' digests in about as long as pins may add to that listing. indexScanner
// reads the line as encodeFile writes it — no spaces, every string printable ASCII without
// escapes — and gives up on anything else, which decodeIndex then leaves to encoding/json:
// whatever it reads, it reads as encoding/json does.
type indexScanner struct {
	b   []byte
	i   int
	bad bool
}

// scanIndex decodes b, an index line; ok is false when b is not in the scanner's subset.
func scanIndex(b []byte) (x index, ok bool) {
	s := indexScanner{b: b}
	if !s.byte('{') {
		return x, false
	}
	for first := true; !s.bad; first = false {
		if s.peek() == '}' && first {
			s.i++
			break
		}
		key := s.str()
		s.byte(':')
		switch key {
		case "format":
			x.Format = s.int()
		case "size":
			x.Size = s.int()
		case "server":
			x.Server = s.str()
		case "origin":
			x.Origin = s.str()
		case "listed":
			x.Listed = s.strs()
		case "removed":
			x.Removed = s.strs()
		case "pinned":
			x.Pinned = s.strMap(x.Pinned)
		case "pending":
			x.Pending = s.strMap(x.Pending)
		case "raw":
			x.Raw = s.strMap(x.Raw)
		case "clean":
			x.Clean = s.strMap(x.Clean)
		default:
			return x, false
		}
		if s.peek() == '}' {
			s.i++
			break
		}
		s.byte(',')
	}
	return x, !s.bad && s.i == len(b)
}

func (s *indexScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	s.bad = true
	return 0
}

func (s *indexScanner) byte(c byte) bool {
	if s.peek() != c {
		s.bad = true
		return false
	}
	s.i++
	return true
}

func (s *indexScanner) null() bool {
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// str reads a string of printable ASCII other than '"' and '\'.
func (s *indexScanner) str() string {
	if !s.byte('"') {
		return ""
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return string(s.b[start : s.i-1])
		case c < 0x20 || c >= 0x7f || c == '\\':
			s.bad = true
			return ""
		}
		s.i++
	}
	s.bad = true
	return ""
}

// int reads a small non-negative integer.
func (s *indexScanner) int() int {
	n, digits := 0, 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' && digits < 9 {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
		digits++
	}
	if digits == 0 || (digits > 1 && s.b[s.i-digits] == '0') || (s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9') {
		s.bad = true
	}
	return n
}

// strs reads an array of strings, or null (nil).
func (s *indexScanner) strs() []string {
	if s.null() {
		return nil
	}
	out := []string{}
	if !s.byte('[') {
		return nil
	}
	if s.peek() == ']' {
		s.i++
		return out
	}
	for !s.bad {
		out = append(out, s.str())
		if s.peek() == ']' {
			s.i++
			return out
		}
		s.byte(',')
	}
	return nil
}

// strMap reads an object of strings into m (a new map when nil), or null (nil), as
// encoding/json does.
func (s *indexScanner) strMap(m map[string]string) map[string]string {
	if s.null() {
		return nil
	}
	if !s.byte('{') {
		return m
	}
	if m == nil {
		m = map[string]string{}
	}
	if s.peek() == '}' {
		s.i++
		return m
	}
	for !s.bad {
		k := s.str()
		s.byte(':')
		m[k] = s.str()
		if s.peek() == '}' {
			s.i++
			return m
		}
		s.byte(',')
	}
	return m
}
