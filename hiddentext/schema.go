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

// SanitizeSchema returns the JSON document raw with every string value of a "description" or
// "title" key, at any depth, sanitized (Sanitize), and the findings; the offsets of a finding
// are within its string. Only those strings are rewritten (as JSON strings, "<", ">" and "&"
// not escaped); every other byte of raw is kept, so key order and formatting survive. raw is
// returned itself when nothing was found, and when it is not JSON this can read (an
// unterminated string).
func SanitizeSchema(raw []byte) ([]byte, []Finding) {
	if !bytes.Contains(raw, []byte(`"description"`)) && !bytes.Contains(raw, []byte(`"title"`)) &&
		!bytes.Contains(raw, []byte(`\u`)) {
		return raw, nil
	}
	var out []byte
	var found []Finding
	last, text, value := 0, false, false // text: the next value is a description or title
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case '"':
			end := stringEnd(raw, i)
			if end < 0 {
				return raw, nil
			}
			j := end
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
				j++
			}
			if !value && j < len(raw) && raw[j] == ':' {
				k := raw[i+1 : end-1]
				if bytes.IndexByte(k, '\\') >= 0 {
					var u string
					_ = json.Unmarshal(raw[i:end], &u)
					k = []byte(u)
				}
				text = string(k) == "description" || string(k) == "title"
				i = end
				continue
			}
			if value && text && !plainString(raw[i+1:end-1]) {
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
			value, text, i = false, false, end
		case ':':
			value = true
			i++
		case ' ', '\t', '\n', '\r':
			i++
		default:
			value, text = false, false
			i++
		}
	}
	if out == nil {
		return raw, nil
	}
	return append(out, raw[last:]...), found
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
