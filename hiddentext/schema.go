package hiddentext

import (
	"bytes"
	"encoding/json"
)

// Policy is what a consumer does with a definition whose text holds hidden text.
type Policy string

const (
	// PolicySanitize removes the hidden text and reports it: the default.
	PolicySanitize Policy = "sanitize"
	// PolicyBlock keeps the whole definition out and reports why.
	PolicyBlock Policy = "block"
)

// SanitizeSchema returns the JSON document raw with every string in it, key or value, at any
// depth, sanitized (Sanitize), and the findings; the offsets of a finding are within its
// string. A model reads the whole schema: descriptions and titles, and equally enum, const,
// default and examples values, property names and the names a required list holds. Only the
// strings that held hidden text are rewritten (as JSON strings, "<", ">" and "&" not escaped);
// every other byte of raw is kept, so key order and formatting survive. raw is returned itself
// when nothing was found, and when it is not JSON this can read (an unterminated string).
func SanitizeSchema(raw []byte) ([]byte, []Finding) {
	if plainJSON(raw) {
		return raw, nil
	}
	var out []byte
	var found []Finding
	last := 0
	for i := 0; i < len(raw); {
		if raw[i] != '"' {
			i++
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return raw, nil
		}
		if !plainString(raw[i+1 : end-1]) {
			var s string
			if json.Unmarshal(raw[i:end], &s) == nil {
				if clean, f := Sanitize(s); f != nil {
					out = append(out, raw[last:i]...)
					out = appendString(out, clean)
					last = end
					found = append(found, f...)
				}
			}
		}
		i = end
	}
	if out == nil {
		return raw, nil
	}
	return append(out, raw[last:]...), found
}

// plainJSON reports whether raw holds nothing to find in any of its strings, without reading
// them: printable ASCII and JSON whitespace, no escape, no "<!--".
func plainJSON(raw []byte) bool {
	for i, c := range raw {
		if c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r' || c >= 0x7f || c == '\\' ||
			c == '<' && bytes.HasPrefix(raw[i:], []byte("<!--")) {
			return false
		}
	}
	return true
}

// stringEnd returns the index after the JSON string starting at raw[i] (a '"'), or -1 when it
// does not end.
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// appendString appends s as a JSON string, without escaping "<", ">" and "&".
func appendString(out []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(out, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// plainString reports whether the body of a JSON string holds nothing to find, without
// decoding it: printable ASCII, no escape, no "<!--".
func plainString(b []byte) bool {
	for i, c := range b {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '<' && bytes.HasPrefix(b[i:], []byte("<!--")) {
			return false
		}
	}
	return true
}
