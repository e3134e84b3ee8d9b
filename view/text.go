package view

import (
	"strings"
	"unicode/utf8"
)

// plainText returns s without control characters: C0 except "\n" and "\t", DEL and C1 are
// removed, and so is each whole escape sequence (ESC or C1 CSI up to its final byte; OSC, DCS,
// SOS, PM and APC up to BEL or ST, or the end of s; ESC and one more character otherwise), so
// that upstream text cannot retitle or redraw a terminal or hide text from a person reading
// it. Other text is kept as it is; s is returned itself when it holds nothing to remove.
func plainText(s string) string {
	clean := true
	for _, r := range s {
		if control(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !control(r) {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		i += n
		switch {
		case r == 0x1b && i < len(s) && s[i] == '[', r == 0x9b:
			if r == 0x1b {
				i++
			}
			i = skipCSI(s, i)
		case r == 0x1b && i < len(s) && strings.IndexByte("]PX^_", s[i]) >= 0, r == 0x9d, r == 0x90, r == 0x98, r == 0x9e, r == 0x9f:
			if r == 0x1b {
				i++
			}
			i = skipString(s, i)
		case r == 0x1b && i < len(s):
			_, m := utf8.DecodeRuneInString(s[i:])
			i += m
		}
	}
	return b.String()
}

// control reports whether r is removed by plainText: C0 other than "\n" and "\t", DEL, C1.
func control(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f
}

// skipCSI returns the index after the CSI sequence whose parameters start at s[i]: parameter
// and intermediate bytes (0x20–0x3f), then one final byte (0x40–0x7e). Anything else ends it.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the index after the control string starting at s[i]: up to and with its
// terminator, BEL, ESC \ or C1 ST, or the end of s.
func skipString(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x07, r == 0x9c:
			return i + n
		case r == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i + 1
		}
		i += n
	}
	return i
}
