package lane

import (
	"errors"
	"net/http"
	"net/textproto"
)

// MaxHead is the length, in bytes, of the longest request head ParseHead takes (through its
// blank line).
const MaxHead = 8 << 10

// MaxFields is the most header field lines, Host included, a head ParseHead takes may have.
const MaxFields = 64

var (
	// ErrIncomplete is ParseHead's answer when b holds no whole head yet and is shorter than
	// MaxHead: more bytes may make one.
	ErrIncomplete = errors.New("lane: incomplete request head")
	// ErrNotLane is what every error of ParseHead but ErrIncomplete wraps: a head the lane does
	// not take, which net/http gets, byte for byte, instead.
	ErrNotLane = errors.New("lane: request head not for the lane")
)

// Head is a request head ParseHead took.
//
// Header holds every field but Host (which is in Host), as net/http's server hands a request to its
// handler: canonical keys, each value with its surrounding SP and HTAB removed, repeated values in
// the order sent; and, like net/http, "Cache-Control: no-cache" added when the head has "Pragma:
// no-cache" and no Cache-Control. ParseHead clears Header and reuses its map, so a caller that
// keeps fields past the next ParseHead must copy them. Target, Host and the values are substrings
// of one string, the head's copy.
type Head struct {
	Method        string // "POST" (only POST is taken)
	Target        string // the request target as sent (origin-form)
	Host          string
	ContentLength int64
	Header        http.Header
}

// ParseHead parses the request head at the start of b into h and returns its length, through
// the blank line; the bytes after it are the body and the next requests. It takes only a
// strict subset of HTTP/1.1 POST requests, one that net/http's http.ReadRequest reads the same
// way (method, target, Host, fields, Content-Length, where the body starts):
//
//   - the request line "POST SP target SP HTTP/1.1", the target origin-form: '/' then bytes of
//     [A-Za-z0-9-._~/] only, no ".." segment;
//   - every line ends in CRLF, none is folded;
//   - fields are token ":" OWS value OWS with value bytes VCHAR, SP or HTAB; at most MaxFields;
//   - exactly one Host, non-empty, of [A-Za-z0-9.:-[]] only; exactly one Content-Length of 1 to
//     10 ASCII digits;
//   - no Transfer-Encoding, Expect, Upgrade, Trailer or TE; Connection absent or "keep-alive"
//     (in any case); no field but Accept more than once;
//   - at most MaxHead bytes.
//
// Every proper prefix of a head ParseHead takes is ErrIncomplete. An error wrapping ErrNotLane is
// final: no bytes added after b make a head ParseHead takes. A line outside the subset is refused
// when it is whole at the latest, a missing or repeated field once the head is. On an error, what h
// holds is unspecified. A head taken costs two allocations when h.Header is reused and every name
// is canonical as sent or a common one.
func ParseHead(b []byte, h *Head) (n int, err error) {
	in := b
	if len(in) > MaxHead {
		in = in[:MaxHead]
	}
	var s scanner
	if err := s.scan(in); err != nil {
		if err == ErrIncomplete && len(b) >= MaxHead {
			return 0, errTooLong
		}
		return 0, err
	}
	if err := h.fill(string(b[:s.end]), &s); err != nil {
		return 0, err
	}
	return s.end, nil
}

// notLane is an error wrapping ErrNotLane with what the lane does not take. Its values are
// constants, so that saying no allocates nothing.
type notLane string

func (e notLane) Error() string { return ErrNotLane.Error() + ": " + string(e) }
func (e notLane) Unwrap() error { return ErrNotLane }

const (
	errMethod    = notLane("method not POST")
	errTarget    = notLane("request target not a plain origin-form path")
	errVersion   = notLane("protocol not HTTP/1.1")
	errBareCR    = notLane("CR not followed by LF")
	errFold      = notLane("line starts with SP or HTAB (obs-fold)")
	errName      = notLane("field name not a token followed by ':'")
	errEmptyName = notLane("empty field name")
	errValue     = notLane("field value byte not VCHAR, SP or HTAB")
	errFields    = notLane("more than MaxFields fields")
	errTooLong   = notLane("head longer than MaxHead")
	errHost      = notLane("not exactly one Host, or an unusual one")
	errLength    = notLane("not exactly one Content-Length of 1 to 10 digits")
	errFraming   = notLane("Transfer-Encoding, Expect, Upgrade, Trailer or TE")
	errConn      = notLane("Connection other than keep-alive")
	errRepeat    = notLane("field other than Accept repeated")
)

// span is where a field's name and value are in the head; the value without its OWS.
type span struct{ ns, ne, vs, ve uint16 }

// scanner checks a head's syntax and the fields that frame it, and keeps where the rest is.
type scanner struct {
	end            int // the head's length, once whole
	ts, te         int // the target
	hs, he         int // Host's value
	hosts, lengths int
	length         int64
	fields         [MaxFields]span // every field but Host
	nf             int
}

func (s *scanner) scan(b []byte) error {
	i, err := expect(b, 0, "POST ", errMethod)
	if err != nil {
		return err
	}
	s.ts = i
	for ; i < len(b) && b[i] != ' '; i++ {
		if !pathByte.has(b[i]) {
			return errTarget
		}
	}
	if i == len(b) {
		return ErrIncomplete
	}
	s.te = i
	if t := b[s.ts:s.te]; len(t) == 0 || t[0] != '/' || hasDotDot(t) {
		return errTarget
	}
	if i, err = expect(b, i, " HTTP/1.1\r\n", errVersion); err != nil {
		return err
	}
	for lines := 0; ; lines++ {
		if i >= len(b) {
			return ErrIncomplete
		}
		switch b[i] {
		case '\r':
			if i+1 == len(b) {
				return ErrIncomplete
			}
			if b[i+1] != '\n' {
				return errBareCR
			}
			s.end = i + 2
			if s.hosts != 1 {
				return errHost
			}
			if s.lengths != 1 {
				return errLength
			}
			return nil
		case ' ', '\t':
			return errFold
		}
		if lines == MaxFields {
			return errFields
		}
		if i, err = s.field(b, i); err != nil {
			return err
		}
	}
}

// field scans the field line at b[i:] and returns where the next line starts.
func (s *scanner) field(b []byte, i int) (int, error) {
	ns := i
	for i < len(b) && tchar.has(b[i]) {
		i++
	}
	if i == len(b) {
		return 0, ErrIncomplete
	}
	if b[i] != ':' {
		return 0, errName
	}
	if i == ns {
		return 0, errEmptyName
	}
	ne := i
	for i++; i < len(b) && (b[i] == ' ' || b[i] == '\t'); i++ {
	}
	vs := i
	for i < len(b) && valueByte.has(b[i]) {
		i++
	}
	switch {
	case i == len(b):
		return 0, ErrIncomplete
	case b[i] != '\r':
		return 0, errValue
	case i+1 == len(b):
		return 0, ErrIncomplete
	case b[i+1] != '\n':
		return 0, errBareCR
	}
	ve := i
	for ve > vs && (b[ve-1] == ' ' || b[ve-1] == '\t') {
		ve--
	}
	name, value := b[ns:ne], b[vs:ve]
	switch {
	case fold(name, "host"):
		if s.hosts++; len(value) == 0 || !allIn(value, hostByte) {
			return 0, errHost
		}
		s.hs, s.he = vs, ve
		return i + 2, nil
	case fold(name, "content-length"):
		s.lengths++
		if len(value) == 0 || len(value) > 10 || !allIn(value, digit) {
			return 0, errLength
		}
		s.length = 0
		for _, c := range value {
			s.length = s.length*10 + int64(c-'0')
		}
	case fold(name, "transfer-encoding"), fold(name, "expect"), fold(name, "upgrade"),
		fold(name, "trailer"), fold(name, "te"):
		return 0, errFraming
	case fold(name, "connection"):
		if !fold(value, "keep-alive") {
			return 0, errConn
		}
	}
	s.fields[s.nf] = span{uint16(ns), uint16(ne), uint16(vs), uint16(ve)}
	s.nf++
	return i + 2, nil
}

// fill sets h from head, the head s scanned, as a string.
func (h *Head) fill(head string, s *scanner) error {
	h.Method = "POST"
	h.Target = head[s.ts:s.te]
	h.Host = head[s.hs:s.he]
	h.ContentLength = s.length
	if h.Header == nil {
		h.Header = make(http.Header, s.nf)
	} else {
		clear(h.Header)
	}
	values := make([]string, s.nf)
	for j, f := range s.fields[:s.nf] {
		key, v := canonicalKey(head[f.ns:f.ne]), head[f.vs:f.ve]
		if vv, ok := h.Header[key]; ok {
			if key != "Accept" {
				return errRepeat
			}
			h.Header[key] = append(vv, v)
			continue
		}
		values[j] = v
		h.Header[key] = values[j : j+1 : j+1]
	}
	// What net/http's ReadRequest does (fixPragmaCacheControl), so that handlers see the same.
	if p := h.Header["Pragma"]; len(p) > 0 && p[0] == "no-cache" {
		if _, ok := h.Header["Cache-Control"]; !ok {
			h.Header["Cache-Control"] = []string{"no-cache"}
		}
	}
	return nil
}

// expect matches b[i:] against want, as far as b goes, and returns the index past it.
func expect(b []byte, i int, want string, mismatch error) (int, error) {
	for j := range len(want) {
		if i+j == len(b) {
			return 0, ErrIncomplete
		}
		if b[i+j] != want[j] {
			return 0, mismatch
		}
	}
	return i + len(want), nil
}

// hasDotDot reports whether path has a ".." segment.
func hasDotDot(path []byte) bool {
	for seg := range splitSlash(path) {
		if len(seg) == 2 && seg[0] == '.' && seg[1] == '.' {
			return true
		}
	}
	return false
}

func splitSlash(path []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		start := 0
		for i := 0; i <= len(path); i++ {
			if i == len(path) || path[i] == '/' {
				if !yield(path[start:i]) {
					return
				}
				start = i + 1
			}
		}
	}
}

// fold reports whether b equals lower (lower case) in ASCII, ignoring case.
func fold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// canonicalKey is textproto.CanonicalMIMEHeaderKey(name) for a token, without allocating when
// name is canonical already or a common name.
func canonicalKey(name string) string {
	var buf [32]byte
	if len(name) > len(buf) {
		return textproto.CanonicalMIMEHeaderKey(name)
	}
	k, upper, changed := buf[:len(name)], true, false
	for i := range len(name) {
		c := name[i]
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		changed = changed || c != name[i]
		k[i], upper = c, c == '-'
	}
	if !changed {
		return name
	}
	if common, ok := commonKeys[string(k)]; ok {
		return common
	}
	return string(k)
}

// commonKeys interns the names MCP clients (go-sdk, Node's fetch) send.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"Accept", "Accept-Encoding", "Accept-Language", "Authorization",
		"Cache-Control", "Connection", "Content-Length", "Content-Type", "Last-Event-Id",
		"Mcp-Protocol-Version", "Mcp-Session-Id", "Origin", "Pragma", "Sec-Fetch-Mode",
		"Traceparent", "Tracestate", "User-Agent"} {
		m[k] = k
	}
	return m
}()

// byteSet is a set of bytes.
type byteSet [256]bool

func (s *byteSet) has(c byte) bool { return s[c] }

func allIn(b []byte, s *byteSet) bool {
	for _, c := range b {
		if !s[c] {
			return false
		}
	}
	return true
}

// setOf is the set of the bytes of ranges, each "a-z" (a range) or any other string (its bytes).
func setOf(ranges ...string) *byteSet {
	var s byteSet
	for _, r := range ranges {
		if len(r) == 3 && r[1] == '-' {
			for c := int(r[0]); c <= int(r[2]); c++ {
				s[c] = true
			}
			continue
		}
		for i := range len(r) {
			s[r[i]] = true
		}
	}
	return &s
}

var (
	alnum     = []string{"A-Z", "a-z", "0-9"}
	tchar     = setOf(append(alnum, "!#$%&'*+.^_`|~", "-")...) // RFC 9110 token
	pathByte  = setOf(append(alnum, "._~/", "-")...)           // what the lane takes in a target
	hostByte  = setOf(append(alnum, ".:[]", "-")...)           // what the lane takes in a Host
	valueByte = setOf("!-~", " \t")                            // VCHAR, SP, HTAB
	digit     = setOf("0-9")
)
