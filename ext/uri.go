package ext

import (
	"fmt"
	"strings"
)

// URI is a parsed extension URI: scheme://authority/path. For skill://pdf/SKILL.md the
// authority is "pdf" and the path "SKILL.md"; for mcp://everything/test://static/resource/1
// the authority is the server name and the path the upstream URI.
type URI struct {
	// Scheme is lower-cased, e.g. "skill".
	Scheme string
	// Authority is the percent-decoded part between "//" and the next "/"; empty for a URI
	// without "//" (scheme:opaque) and for scheme:///path.
	Authority string
	// Path is the percent-decoded rest after the "/" that ends the authority (so without that
	// leading "/"), or the opaque part of scheme:opaque. Query and fragment are not split out.
	Path string
	// Raw is the string that was parsed, unchanged.
	Raw string
}

// String returns Raw.
func (u URI) String() string { return u.Raw }

// ParseURI parses s as scheme://authority/path (or scheme:opaque). The scheme follows RFC 3986
// (a letter, then letters, digits, "+", "-" or ".") and is lower-cased; authority and path are
// percent-decoded. A missing or malformed scheme, a NUL byte (raw or %00) and a malformed
// percent-escape are ErrInvalidURI, naming what is wrong and where.
func ParseURI(s string) (URI, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return URI{}, fmt.Errorf("%w %q: NUL byte at offset %d", ErrInvalidURI, s, i)
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return URI{}, fmt.Errorf("%w %q: missing scheme", ErrInvalidURI, s)
	}
	scheme, err := parseScheme(s[:colon])
	if err != nil {
		return URI{}, fmt.Errorf("%w %q: %v", ErrInvalidURI, s, err)
	}
	u := URI{Scheme: scheme, Raw: s}
	rest := s[colon+1:]
	pathOff := colon + 1
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		auth := rest
		pathOff += 2 + len(rest)
		if slash := strings.IndexByte(rest, '/'); slash >= 0 {
			auth = rest[:slash]
			rest = rest[slash+1:]
			pathOff = colon + 1 + 2 + slash + 1
		} else {
			rest = ""
		}
		if u.Authority, err = percentDecode(auth); err != nil {
			return URI{}, fmt.Errorf("%w %q: authority at offset %d: %v", ErrInvalidURI, s, colon+3, err)
		}
	}
	if u.Path, err = percentDecode(rest); err != nil {
		return URI{}, fmt.Errorf("%w %q: path at offset %d: %v", ErrInvalidURI, s, pathOff, err)
	}
	return u, nil
}

// parseScheme checks an RFC 3986 scheme and returns it lower-cased.
func parseScheme(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("empty scheme")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return "", fmt.Errorf("invalid scheme %q: character %q at offset %d", s, c, i)
		}
	}
	return strings.ToLower(s), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// percentDecode decodes %XX escapes strictly: a "%" not followed by two hex digits, and an
// escape decoding to NUL, are errors naming the offset.
func percentDecode(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("truncated percent-escape %q at offset %d", s[i:], i)
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", fmt.Errorf("invalid percent-escape %q at offset %d", s[i:i+3], i)
		}
		c := hi<<4 | lo
		if c == 0 {
			return "", fmt.Errorf("encoded NUL (%%00) at offset %d", i)
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), nil
}

// percentDecodeLenient decodes the valid %XX escapes of s and keeps anything else as it is
// (a file may be called "100%.txt").
func percentDecodeLenient(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				b.WriteByte(hi<<4 | lo)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
