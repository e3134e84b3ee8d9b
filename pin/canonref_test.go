package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// canonicalRef is the first canonicaliser, kept as the reference the streaming one is
// checked against (pin files written with it must keep their digests). It returns the RFC 8785 (JSON Canonicalization Scheme) form of the JSON text data:
// no insignificant whitespace, object members sorted by their names' UTF-16 code units,
// numbers in ECMAScript's shortest round-trip form, strings with only the escapes JSON
// requires (no HTML escaping). Two texts that differ only in those respects have the same
// canonical form. It fails on text that is not one JSON value, on a duplicate member name
// and on a number outside IEEE 754 double precision.
func canonicalRef(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var b bytes.Buffer
	if err := refValue(dec, &b); err != nil {
		return nil, fmt.Errorf("pin: canonical JSON: %w", err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("pin: canonical JSON: more than one value")
	}
	return b.Bytes(), nil
}

// refValue writes the next value of dec to b, canonically.
func refValue(dec *json.Decoder, b *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := refValue(dec, b); err != nil {
					return err
				}
			}
			_, err := dec.Token() // ]
			b.WriteByte(']')
			return err
		}
		return refObject(dec, b)
	case string:
		refString(b, t)
	case json.Number:
		s, err := refNumber(string(t))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
	return nil
}

// refObject writes an object whose '{' dec has just read.
func refObject(dec *json.Decoder, b *bytes.Buffer) error {
	type member struct {
		key string
		val []byte
	}
	var ms []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if seen[key] {
			return fmt.Errorf("duplicate member %q", key)
		}
		seen[key] = true
		var v bytes.Buffer
		if err := refValue(dec, &v); err != nil {
			return err
		}
		ms = append(ms, member{key, v.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // }
		return err
	}
	slices.SortFunc(ms, func(a, c member) int { return refCompareUTF16(a.key, c.key) })
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		refString(b, m.key)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return nil
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785 sorts member names
// (UTF-8 byte order differs for characters above U+FFFF against U+E000–U+FFFF).
func refCompareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ua, ub := refUnits(ra), refUnits(rb)
		for i := 0; i < len(ua) && i < len(ub); i++ {
			if ua[i] != ub[i] {
				return int(ua[i]) - int(ub[i])
			}
		}
		return len(ua) - len(ub)
	}
	return len(a) - len(b)
}

func refUnits(r rune) []uint16 {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError || r2 != utf8.RuneError {
		return []uint16{uint16(r1), uint16(r2)}
	}
	return []uint16{uint16(r)}
}

// refString writes s as a JSON string with RFC 8785's escapes: \" \\ \b \f \n \r \t, other
// control characters as \u00xx, everything else as itself.
func refString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// number returns the JSON number s in ECMAScript's Number.prototype.toString form, as RFC
// 8785 asks: the shortest digits that round-trip, exponent form below 1e-6 and from 1e21.
func refNumber(s string) (string, error) {
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

// sealRef is Definition.seal as first written, over canonicalRef.
func sealRef(d Definition) Definition {
	d.Digest = ""
	d.Schema, d.Output, d.Annotations = refCanonOrString(d.Schema), refCanonOrString(d.Output), refCanonOrString(d.Annotations)
	data, _ := json.Marshal(d)
	c, err := canonicalRef(data)
	if err != nil {
		c = data
	}
	sum := sha256.Sum256(c)
	d.Digest = hex.EncodeToString(sum[:])
	return d
}

func refCanonOrString(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	c, err := canonicalRef(raw)
	if err != nil {
		c, _ = json.Marshal(string(raw))
	}
	return c
}
