package httpcall

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"unsafe"
)

// head is the reusable memory a connection reads a response's head into.
type head struct {
	buf    []byte  // the status line, then each header field as one logical line
	fields []field // offsets into buf
}

// maxKeptHead is the most memory a connection keeps for reading heads.
const maxKeptHead = 64 << 10

// maxHint bounds the room made ahead for a head's keys and values: a head of many fields
// may repeat a few keys.
const maxHint = 1000

// field is one header field's key and value, as offsets into head.buf. A head read by a
// Transport is at most maxHeaderBytes.
type field struct{ k0, k1, v0, v1 int32 }

func (f field) key(s string) string   { return s[f.k0:f.k1] }
func (f field) value(s string) string { return s[f.v0:f.v1] }

// readResponse reads a response's head from br into resp and sets f to frame its body, as
// http.ReadResponse does for a request of method (see the package doc).
func readResponse(br *bufio.Reader, method string, h *head, resp *http.Response, f *frame) error {
	buf, err := appendLine(br, h.buf[:0])
	h.buf = buf
	if err != nil {
		return err
	}
	statusEnd := len(buf)
	sp := bytes.IndexByte(buf, ' ')
	if sp < 0 {
		return badString("malformed HTTP response", buf)
	}
	st := sp + 1
	for st < statusEnd && buf[st] == ' ' {
		st++
	}
	codeEnd := statusEnd
	if i := bytes.IndexByte(buf[st:], ' '); i >= 0 {
		codeEnd = st + i
	}
	code, ok := parseStatusCode(buf[st:codeEnd])
	if !ok {
		return badString("malformed HTTP status code", buf[st:codeEnd])
	}
	major, minor, ok := parseVersion(buf[:sp])
	if !ok {
		return badString("malformed HTTP version", buf[:sp])
	}
	if err := h.readFields(br); err != nil {
		return err
	}

	s := string(h.buf) // the one string every key and value is a part of
	// A head of many fields (of a few keys, possibly) grows the map as it fills, as
	// textproto's does.
	hdr := make(http.Header, min(len(h.fields), maxHint))
	var seen fieldSet
	if len(h.fields) > maxFew {
		seen = h.manyFields(s, hdr)
	} else {
		seen = h.fewFields(s, hdr)
	}
	h.shrink()
	if seen&pragma != 0 {
		if pv := hdr["Pragma"]; len(pv) > 0 && pv[0] == "no-cache" {
			if _, ok := hdr["Cache-Control"]; !ok {
				hdr["Cache-Control"] = []string{"no-cache"}
			}
		}
	}
	*resp = http.Response{Status: s[st:statusEnd], StatusCode: code, Proto: s[:sp],
		ProtoMajor: major, ProtoMinor: minor, Header: hdr, Request: resp.Request}
	return frameBody(br, method, resp, f, seen)
}

// shrink drops the memory of an exceptionally large head (its bytes or its many fields), so
// that a kept connection holds at most maxKeptHead bytes for reading heads.
func (h *head) shrink() {
	if cap(h.buf)+cap(h.fields)*int(unsafe.Sizeof(field{})) > maxKeptHead {
		h.buf, h.fields = nil, nil
	}
}

// readFields reads the header fields after the status line, up to and with the blank line,
// as textproto.Reader.ReadMIMEHeader does.
func (h *head) readFields(br *bufio.Reader) error {
	h.fields = h.fields[:0]
	if b, err := br.Peek(1); err == nil && (b[0] == ' ' || b[0] == '\t') {
		line, _ := appendLine(br, nil)
		return protocolError("malformed MIME header initial line", line[:min(len(line), 80)])
	}
	for {
		start := len(h.buf)
		buf, err := appendLine(br, h.buf)
		h.buf = buf
		if err != nil {
			return err
		}
		if len(buf) == start {
			return nil
		}
		colon := bytes.IndexByte(buf[start:], ':')
		if colon < 0 {
			return protocolError("malformed MIME header: missing colon", buf[start:])
		}
		lead, line := trim(buf[start:])
		colon -= lead
		h.buf = append(buf[:start], line...)
		// An obsolete line folding: a line beginning with white space continues the field,
		// joined by one space.
		for {
			b, err := br.Peek(1)
			if err != nil || (b[0] != ' ' && b[0] != '\t') {
				break
			}
			for b, err := br.Peek(1); err == nil && (b[0] == ' ' || b[0] == '\t'); b, err = br.Peek(1) {
				br.Discard(1)
			}
			h.buf = append(h.buf, ' ')
			cont := len(h.buf)
			if h.buf, err = appendLine(br, h.buf); err != nil {
				return err
			}
			_, line := trim(h.buf[cont:])
			h.buf = append(h.buf[:cont], line...)
		}
		kv := h.buf[start:]
		if !canonicalKey(kv[:colon]) {
			return protocolError("malformed MIME header line", kv)
		}
		for _, c := range kv[colon+1:] {
			if !validValueByte(c) {
				return protocolError("malformed MIME header line", kv)
			}
		}
		v0 := start + colon + 1
		for v0 < len(h.buf) && (h.buf[v0] == ' ' || h.buf[v0] == '\t') {
			v0++
		}
		if len(h.fields) == cap(h.fields) {
			// Doubled: a head of many small fields allocates twice what it keeps, where
			// append's smaller steps for a large slice would allocate five times.
			h.fields = slices.Grow(h.fields, len(h.fields)+1)
		}
		h.fields = append(h.fields, field{k0: int32(start), k1: int32(start + colon), v0: int32(v0), v1: int32(len(h.buf))})
	}
}

// appendLine appends br's next line to dst without its "\n" or "\r\n". A line that the end
// of the stream cuts short is an error: a head ends with a blank line.
func appendLine(br *bufio.Reader, dst []byte) ([]byte, error) {
	start := len(dst)
	for {
		s, err := br.ReadSlice('\n')
		dst = append(dst, s...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return dst, err
		}
	}
	dst = dst[:len(dst)-1]
	if len(dst) > start && dst[len(dst)-1] == '\r' {
		dst = dst[:len(dst)-1]
	}
	return dst, nil
}

// trim returns s without the spaces and tabs around it, and how many it had before.
func trim(s []byte) (int, []byte) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := len(s)
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return i, s[i:j]
}

// maxFew is the most fields a head has for fewFields to read them.
const maxFew = 32

// fewFields puts the fields of a head of few fields into hdr, s being the head, and returns
// which fields of framing it has. A key's first value is a slice of one array for all; a
// repeated key is found by a scan of the fields before it, not a map look-up each.
func (h *head) fewFields(s string, hdr http.Header) fieldSet {
	strs := make([]string, len(h.fields))
	var seen fieldSet
	for i, fl := range h.fields {
		k, v := fl.key(s), fl.value(s)
		seen |= framing(k)
		if h.repeated(s, i) {
			hdr[k] = append(hdr[k], v)
			continue
		}
		strs[i] = v
		hdr[k] = strs[i : i+1 : i+1]
	}
	return seen
}

// repeated reports whether field i's key is one of an earlier field, s being the head.
func (h *head) repeated(s string, i int) bool {
	k := h.fields[i].key(s)
	for _, f := range h.fields[:i] {
		if f.key(s) == k {
			return true
		}
	}
	return false
}

// manyFields is fewFields for a head of many fields: each key's values are counted first, so
// that a key repeated many times gets one slice of their number, not one grown as they come.
func (h *head) manyFields(s string, hdr http.Header) fieldSet {
	counts := make(map[string]int, min(len(h.fields), maxHint))
	for _, fl := range h.fields {
		counts[fl.key(s)]++
	}
	var seen fieldSet
	for _, fl := range h.fields {
		k := fl.key(s)
		vv, ok := hdr[k]
		if !ok {
			seen |= framing(k)
			vv = make([]string, 0, counts[k])
		}
		hdr[k] = append(vv, fl.value(s))
	}
	return seen
}

// fieldSet records which fields that framing depends on a header has, so that the absent
// ones are not looked up.
type fieldSet uint8

const (
	connection fieldSet = 1 << iota
	contentLength
	transferEncoding
	trailer
	pragma
)

func framing(k string) fieldSet {
	switch k {
	case "Connection":
		return connection
	case "Content-Length":
		return contentLength
	case "Transfer-Encoding":
		return transferEncoding
	case "Trailer":
		return trailer
	case "Pragma":
		return pragma
	}
	return 0
}

// parseStatusCode parses three characters as strconv.Atoi does (a sign is allowed), refusing
// a negative code.
func parseStatusCode(b []byte) (int, bool) {
	if len(b) != 3 {
		return 0, false
	}
	neg, d := false, b
	if b[0] == '+' || b[0] == '-' {
		neg, d = b[0] == '-', b[1:]
	}
	n := 0
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, !neg || n == 0
}

// parseVersion is http.ParseHTTPVersion.
func parseVersion(v []byte) (major, minor int, ok bool) {
	if len(v) != len("HTTP/X.Y") || string(v[:5]) != "HTTP/" || v[6] != '.' ||
		!isDigit(v[5]) || !isDigit(v[7]) {
		return 0, 0, false
	}
	return int(v[5] - '0'), int(v[7] - '0'), true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// canonicalKey reports whether k is a valid field name (token characters; a space is accepted
// and then the key is kept as it is, as net/textproto does), canonicalising it in place.
func canonicalKey(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	space := false
	for _, c := range k {
		if c == ' ' {
			space = true
		} else if !isTokenByte(c) {
			return false
		}
	}
	if space {
		return true
	}
	upper := true
	for i, c := range k {
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		k[i] = c
		upper = c == '-'
	}
	return true
}

// isTokenByte reports whether c is a tchar of RFC 9110.
func isTokenByte(c byte) bool {
	return c < 0x80 && tokenTable[c]
}

var tokenTable = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// validValueByte reports whether c may be in a field value: a visible character, a space, a
// tab or obs-text.
func validValueByte(c byte) bool { return c >= 0x20 && c != 0x7f || c == '\t' }

func badString(what string, val []byte) error { return fmt.Errorf("%s %q", what, val) }

func protocolError(what string, line []byte) error {
	return textproto.ProtocolError(fmt.Sprintf("%s: %q", what, line))
}
