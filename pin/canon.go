package pin

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical returns the RFC 8785 (JSON Canonicalization Scheme) form of the JSON text data:
// no insignificant whitespace, object members sorted by their names' UTF-16 code units,
// numbers in ECMAScript's shortest round-trip form, strings with only the escapes JSON
// requires (no HTML escaping). Two texts that differ only in those respects have the same
// canonical form. It fails on text that is not one JSON value, on a duplicate member name
// and on a number outside IEEE 754 double precision.
func Canonical(data []byte) ([]byte, error) {
	c := canons.Get().(*canon)
	defer c.free()
	if err := c.text(data); err != nil {
		return nil, err
	}
	return slices.Clone(c.out), nil
}

// canon canonicalises JSON text in one pass over it, writing to out: values are copied as
// they are read, and an object's members are reordered only when the text does not already
// list them in order (an encoder that sorts its keys, as Go's does for maps, leaves nothing
// to reorder).
type canon struct {
	out     []byte
	members []member // the members of the objects being read, innermost last
	scratch []byte
}

// member is one object member written to out: out[start:end] is `"key":value`, and
// out[start+1:keyEnd-1] the key as written (canonical escapes).
type member struct{ start, keyEnd, end int }

var canons = sync.Pool{New: func() any { return new(canon) }}

// free returns c to the pool; a canon that grew large is dropped.
func (c *canon) free() {
	if cap(c.out) > 1<<16 || cap(c.scratch) > 1<<16 {
		return
	}
	c.out, c.members, c.scratch = c.out[:0], c.members[:0], c.scratch[:0]
	canons.Put(c)
}

// text writes the canonical form of data, which must be exactly one value, to c.out.
func (c *canon) text(data []byte) error {
	i, err := c.value(data, skipSpace(data, 0))
	if err == nil && skipSpace(data, i) != len(data) {
		err = errors.New("more than one value")
	}
	if err != nil {
		return fmt.Errorf("pin: canonical JSON: %w", err)
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func syntaxError(data []byte, i int) error {
	if i >= len(data) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %q at offset %d", data[i], i)
}

// value writes the value at data[i:] and returns the offset after it.
func (c *canon) value(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, syntaxError(data, i)
	}
	switch b := data[i]; {
	case b == '{':
		return c.object(data, i+1)
	case b == '[':
		return c.array(data, i+1)
	case b == '"':
		return c.str(data, i+1)
	case b == '-' || b >= '0' && b <= '9':
		return c.number(data, i)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(data[i:], []byte(lit)) {
			c.out = append(c.out, lit...)
			return i + len(lit), nil
		}
	}
	return i, syntaxError(data, i)
}

func (c *canon) array(data []byte, i int) (int, error) {
	c.out = append(c.out, '[')
	i = skipSpace(data, i)
	if i < len(data) && data[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, nil
	}
	for {
		var err error
		if i, err = c.value(data, skipSpace(data, i)); err != nil {
			return i, err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, syntaxError(data, i)
		}
		switch data[i] {
		case ',':
			c.out = append(c.out, ',')
			i++
		case ']':
			c.out = append(c.out, ']')
			return i + 1, nil
		default:
			return i, syntaxError(data, i)
		}
	}
}

func (c *canon) object(data []byte, i int) (int, error) {
	open := len(c.out)
	c.out = append(c.out, '{')
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	i = skipSpace(data, i)
	if i < len(data) && data[i] == '}' {
		c.out = append(c.out, '}')
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, syntaxError(data, i)
		}
		if len(c.members) > base {
			c.out = append(c.out, ',')
		}
		m := member{start: len(c.out)}
		var err error
		if i, err = c.str(data, i+1); err != nil {
			return i, err
		}
		m.keyEnd = len(c.out)
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return i, syntaxError(data, i)
		}
		c.out = append(c.out, ':')
		if i, err = c.value(data, skipSpace(data, i+1)); err != nil {
			return i, err
		}
		m.end = len(c.out)
		c.members = append(c.members, m)
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, syntaxError(data, i)
		}
		if data[i] == '}' {
			i++
			break
		}
		if data[i] != ',' {
			return i, syntaxError(data, i)
		}
		i = skipSpace(data, i+1)
	}
	return i, c.order(open, c.members[base:])
}

// order closes the object whose '{' is at out[open] and whose members are ms, sorting the
// members when they are not in order already.
func (c *canon) order(open int, ms []member) error {
	key := func(buf []byte, m member) []byte { return buf[m.start+1 : m.keyEnd-1] }
	sorted := true
	for k := 1; k < len(ms); k++ {
		switch n := compareKeys(key(c.out, ms[k-1]), key(c.out, ms[k])); {
		case n == 0:
			return duplicate(key(c.out, ms[k]))
		case n > 0:
			sorted = false
		}
	}
	if sorted {
		c.out = append(c.out, '}')
		return nil
	}
	c.scratch = append(c.scratch[:0], c.out[open:]...)
	for k := range ms {
		ms[k].start -= open
		ms[k].keyEnd -= open
		ms[k].end -= open
	}
	slices.SortFunc(ms, func(a, b member) int { return compareKeys(key(c.scratch, a), key(c.scratch, b)) })
	c.out = append(c.out[:open], '{')
	for k, m := range ms {
		if k > 0 {
			if compareKeys(key(c.scratch, ms[k-1]), key(c.scratch, m)) == 0 {
				return duplicate(key(c.scratch, m))
			}
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, c.scratch[m.start:m.end]...)
	}
	c.out = append(c.out, '}')
	return nil
}

func duplicate(key []byte) error {
	return fmt.Errorf("duplicate member %q", unescape(key))
}

// compareKeys orders two member names as written (canonical escapes) by the UTF-16 code
// units of the names they stand for.
func compareKeys(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	switch {
	case n == len(a) || n == len(b):
		if !slices.Contains(a, '\\') && !slices.Contains(b, '\\') {
			return len(a) - len(b)
		}
	case a[n] < 0x80 && b[n] < 0x80 && a[n] != '\\' && b[n] != '\\' && !slices.Contains(a[:n], '\\'):
		return int(a[n]) - int(b[n])
	}
	return compareUTF16(unescape(a), unescape(b))
}

// unescape returns the name a canonically written key stands for.
func unescape(key []byte) string {
	if !slices.Contains(key, '\\') {
		return string(key)
	}
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		if key[i] != '\\' {
			b.WriteByte(key[i])
			continue
		}
		i++
		switch key[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u': // \u00xx, a control character
			v, _ := strconv.ParseUint(string(key[i+1:i+5]), 16, 8)
			b.WriteByte(byte(v))
			i += 4
		default: // " or \
			b.WriteByte(key[i])
		}
	}
	return b.String()
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785 sorts member names
// (UTF-8 byte order differs for characters above U+FFFF against U+E000–U+FFFF).
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ua, ub := units(ra), units(rb)
		for i := 0; i < len(ua) && i < len(ub); i++ {
			if ua[i] != ub[i] {
				return int(ua[i]) - int(ub[i])
			}
		}
		return len(ua) - len(ub)
	}
	return len(a) - len(b)
}

func units(r rune) []uint16 {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError || r2 != utf8.RuneError {
		return []uint16{uint16(r1), uint16(r2)}
	}
	return []uint16{uint16(r)}
}

// str writes the string whose opening quote is at data[i-1], with RFC 8785's escapes: runs
// that need none are copied as they are.
func (c *canon) str(data []byte, i int) (int, error) {
	c.out = append(c.out, '"')
	run := i
	for i < len(data) {
		b := data[i]
		switch {
		case b >= 0x20 && b < 0x80 && b != '"' && b != '\\':
			i++
			continue
		case b == '"':
			c.out = append(c.out, data[run:i]...)
			c.out = append(c.out, '"')
			return i + 1, nil
		case b >= 0x80:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 { // not UTF-8: U+FFFD, as a JSON decoder reads it
				c.out = append(c.out, data[run:i]...)
				c.out = utf8.AppendRune(c.out, utf8.RuneError)
				run = i + 1
			}
			i += n
			continue
		case b < 0x20:
			return i, syntaxError(data, i)
		}
		// b == '\\'
		c.out = append(c.out, data[run:i]...)
		r, n, err := escape(data, i)
		if err != nil {
			return i, err
		}
		c.out = appendRune(c.out, r)
		i += n
		run = i
	}
	return i, syntaxError(data, i)
}

// escape reads the escape at data[i:] ('\\' first) and returns the rune it stands for and
// its length, reading a UTF-16 surrogate pair as one rune and a lone surrogate as U+FFFD.
func escape(data []byte, i int) (rune, int, error) {
	if i+1 >= len(data) {
		return 0, 0, syntaxError(data, i+1)
	}
	switch data[i+1] {
	case '"', '\\', '/':
		return rune(data[i+1]), 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
		r := hex4(data, i+2)
		if r < 0 {
			return 0, 0, syntaxError(data, i+2)
		}
		if utf16.IsSurrogate(r) {
			if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
				if r2 := hex4(data, i+8); r2 >= 0 {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						return dec, 12, nil
					}
				}
			}
			return utf8.RuneError, 6, nil
		}
		return r, 6, nil
	}
	return 0, 0, syntaxError(data, i+1)
}

// hex4 returns the value of the four hex digits at data[i:], or -1.
func hex4(data []byte, i int) rune {
	if i+4 > len(data) {
		return -1
	}
	var r rune
	for _, b := range data[i : i+4] {
		switch {
		case b >= '0' && b <= '9':
			b -= '0'
		case b >= 'a' && b <= 'f':
			b -= 'a' - 10
		case b >= 'A' && b <= 'F':
			b -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(b)
	}
	return r
}

// appendRune appends r as RFC 8785 writes it in a string: \" \\ \b \f \n \r \t, other
// control characters as \u00xx, everything else as itself.
func appendRune(out []byte, r rune) []byte {
	switch r {
	case '"':
		return append(out, `\"`...)
	case '\\':
		return append(out, `\\`...)
	case '\b':
		return append(out, `\b`...)
	case '\f':
		return append(out, `\f`...)
	case '\n':
		return append(out, `\n`...)
	case '\r':
		return append(out, `\r`...)
	case '\t':
		return append(out, `\t`...)
	}
	if r < 0x20 {
		return append(out, '\\', 'u', '0', '0', "0123456789abcdef"[r>>4], "0123456789abcdef"[r&0xf])
	}
	return utf8.AppendRune(out, r)
}

// appendString appends s as a canonical JSON string; a byte of s that is not UTF-8 is
// U+FFFD, as a JSON encoder writes it.
func appendString(out []byte, s string) []byte {
	out = append(out, '"')
	run := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b < 0x80 && b != '"' && b != '\\' {
			i++
			continue
		}
		r, n := rune(b), 1
		if b >= 0x80 {
			if r, n = utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
		}
		out = appendRune(append(out, s[run:i]...), r)
		i += n
		run = i
	}
	return append(append(out, s[run:]...), '"')
}

// number writes the number at data[i:]. An integer of at most 15 digits is already in
// ECMAScript form (but -0); any other number is parsed and written again.
func (c *canon) number(data []byte, i int) (int, error) {
	start := i
	if data[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return i, syntaxError(data, i)
	}
	plain := i-digits <= 15
	if i < len(data) && data[i] == '.' {
		plain = false
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return i, syntaxError(data, i)
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		plain = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return i, syntaxError(data, i)
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	text := data[start:i]
	if plain {
		if string(text) == "-0" {
			text = text[1:]
		}
		c.out = append(c.out, text...)
		return i, nil
	}
	s, err := number(string(text))
	if err != nil {
		return i, err
	}
	c.out = append(c.out, s...)
	return i, nil
}

// number returns the JSON number s in ECMAScript's Number.prototype.toString form, as RFC
// 8785 asks: the shortest digits that round-trip, exponent form below 1e-6 and from 1e21.
func number(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("number %s is not an IEEE 754 double", s)
	}
	if f == 0 {
		return "0", nil // and -0
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + string(sign) + exp, nil
}
