package hiddentext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Class is the kind of hidden text a Finding is.
type Class string

// The classes of hidden text; the package doc says what each covers.
const (
	ClassZeroWidth   Class = "zero-width"
	ClassBidi        Class = "bidi"
	ClassTag         Class = "tag"
	ClassFormat      Class = "format"
	ClassControl     Class = "control"
	ClassEscape      Class = "escape-sequence"
	ClassHTMLComment Class = "html-comment"
)

// Finding is one piece of hidden text: its class and where it is, in bytes of the text
// scanned.
type Finding struct {
	Class  Class `json:"class"`
	Offset int   `json:"offset"`
	Len    int   `json:"len"`
	// Hidden is what the finding says to whoever reads it: for ClassTag the ASCII its tag
	// characters spell, for ClassHTMLComment the comment's text (at most 200 bytes); "" for
	// the other classes.
	Hidden string `json:"hidden,omitempty"`
}

// String is "<class> at <offset> (<len> bytes)", with what it spells when Hidden is set.
func (f Finding) String() string {
	s := fmt.Sprintf("%s at %d (%d bytes)", f.Class, f.Offset, f.Len)
	if f.Hidden != "" {
		s += fmt.Sprintf(": %q", f.Hidden)
	}
	return s
}

// maxHidden bounds Finding.Hidden.
const maxHidden = 200

// Scan returns the hidden text in s, in order of offset; nil when there is none. Findings do
// not overlap. It does not allocate for text without any.
func Scan(s string) []Finding {
	if plain(s) {
		return nil
	}
	var out []Finding
	for i := 0; i < len(s); {
		f, ok := at(s, i)
		if !ok {
			i += f.Len
			continue
		}
		out = append(out, f)
		i += f.Len
	}
	return out
}

// Sanitize returns s without its hidden text, and what was removed. It scans again after each
// removal until nothing is found (a removal can join two parts into a new finding): the
// findings of the first pass have offsets in s, those of a later pass (rare) offsets in the
// text the pass before left. The result has no findings, and is s itself when s had none.
func Sanitize(s string) (string, []Finding) {
	var all []Finding
	for {
		found := Scan(s)
		if len(found) == 0 {
			return s, all
		}
		all = append(all, found...)
		s = remove(s, found)
	}
}

// remove returns s without the spans of found (ordered, not overlapping).
func remove(s string, found []Finding) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, f := range found {
		b.WriteString(s[last:f.Offset])
		last = f.Offset + f.Len
	}
	b.WriteString(s[last:])
	return b.String()
}

// plain reports whether s is printable ASCII, "\n", "\r\n" and "\t", with no "<!--": text
// that holds nothing to find, checked without decoding.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case c >= 0x7f, c < 0x20 && c != '\n' && c != '\t':
			return false
		case c == '<' && strings.HasPrefix(s[i:], "<!--"):
			return false
		}
	}
	return true
}

// at returns the finding that starts at s[i], if one does; otherwise its Len is how far the
// text that is not hidden extends (a rune, or an emoji flag's tags).
func at(s string, i int) (Finding, bool) {
	r, n := utf8.DecodeRuneInString(s[i:])
	f := Finding{Offset: i, Len: n}
	switch {
	case r == '<':
		if !strings.HasPrefix(s[i:], "<!--") {
			return f, false
		}
		end := len(s) // a comment never closed hides the rest
		switch rest := s[i+4:]; {
		case strings.HasPrefix(rest, ">"): // "<!-->", an empty comment closed at once
			end = i + 5
		case strings.HasPrefix(rest, "->"): // "<!--->"
			end = i + 6
		default:
			if j := strings.Index(rest, "-->"); j >= 0 {
				end = i + 4 + j + 3
			}
		}
		f.Class, f.Len = ClassHTMLComment, end-i
		if end > i+6 || !strings.HasSuffix(s[i:end], ">") {
			f.Hidden = clip(strings.TrimSpace(strings.TrimSuffix(s[i+4:end], "-->")))
		}
		return f, true
	case r < 0x80 && r >= 0x20 && r != 0x7f, r == '\n', r == '\t':
		return f, false
	case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		return f, false // a line ended the Windows way; a lone "\r" (overwriting a line) is found
	case r == 0x1b || r == 0x9b || r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
		f.Class, f.Len = ClassEscape, escapeEnd(s, i)-i
		return f, true
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		f.Class = ClassControl
		return f, true
	case r >= 0xe0000 && r <= 0xe007f:
		return tags(s, i)
	case r == 0x200c || r == 0x200d:
		if joins(s, i, n, r) {
			return f, false
		}
		f.Class = ClassZeroWidth
		return f, true
	case zeroWidth(r):
		f.Class = ClassZeroWidth
		return f, true
	case bidi(r):
		f.Class = ClassBidi
		return f, true
	case r >= 0x180b && r <= 0x180f && r != 0x180e: // Mongolian free variation selectors
		if p, _ := utf8.DecodeLastRuneInString(s[:i]); i > 0 && unicode.IsLetter(p) && unicode.Is(unicode.Mongolian, p) {
			return f, false
		}
		f.Class = ClassFormat
		return f, true
	case ignorable(r):
		f.Class = ClassFormat
		return f, true
	case selector(r):
		if selects(s, i, r) {
			return f, false
		}
		f.Class = ClassFormat
		return f, true
	case unicode.Is(unicode.Cf, r):
		f.Class = ClassFormat
		return f, true
	}
	return f, false
}

func clip(s string) string {
	if len(s) <= maxHidden {
		return s
	}
	s = s[:maxHidden]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// zeroWidth reports the invisible characters of ClassZeroWidth other than the joiners.
func zeroWidth(r rune) bool {
	switch r {
	case 0x200b, 0x2060, 0xfeff, 0x180e, 0x115f, 0x1160, 0x3164, 0xffa0:
		return true
	}
	return false
}

// ignorable reports the default-ignorable code points (drawn as nothing) that are neither
// format characters nor in another class: U+034F combining grapheme joiner, the Khmer inherent
// vowels U+17B4 and U+17B5, and the unassigned U+2065, U+FFF0–U+FFF8, U+E0080–U+E00FF and
// U+E01F0–U+E0FFF, which a font draws as nothing once assigned as well as before.
func ignorable(r rune) bool {
	return r == 0x034f || r == 0x17b4 || r == 0x17b5 || r == 0x2065 || r >= 0xfff0 && r <= 0xfff8 ||
		r >= 0xe0080 && r <= 0xe00ff || r >= 0xe01f0 && r <= 0xe0fff
}

func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// selector reports a variation selector: U+FE00–U+FE0F or U+E0100–U+E01EF.
func selector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

// selects reports whether the variation selector r at s[i] directly follows a base character
// it may select a variant of (the package doc's rule).
func selects(s string, i int, r rune) bool {
	p, _ := utf8.DecodeLastRuneInString(s[:i])
	if i == 0 || p == utf8.RuneError || selector(p) || unicode.IsSpace(p) || unicode.IsMark(p) ||
		unicode.IsControl(p) || unicode.Is(unicode.Cf, p) {
		return false
	}
	if r >= 0xe0100 {
		return unicode.Is(unicode.Han, p)
	}
	return true
}

// joiningScripts are the scripts whose shaping uses U+200C and U+200D between letters.
var joiningScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
	unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
	unicode.Khmer, unicode.Myanmar, unicode.Tibetan,
}

// joins reports whether the joiner r (n bytes) at s[i] stands where text needs it: U+200D
// between two emoji, or either joiner between letters or marks of one joining script.
func joins(s string, i, n int, r rune) bool {
	next, _ := utf8.DecodeRuneInString(s[i+n:])
	if r == 0x200d && emoji(next) {
		j := i
		for j > 0 {
			p, m := utf8.DecodeLastRuneInString(s[:j])
			if selector(p) || p >= 0x1f3fb && p <= 0x1f3ff {
				j -= m
				continue
			}
			if emoji(p) {
				return true
			}
			break
		}
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	if i == 0 || !letterOrMark(prev) || !letterOrMark(next) {
		return false
	}
	for _, t := range joiningScripts {
		if unicode.Is(t, prev) {
			return unicode.Is(t, next)
		}
	}
	return false
}

func letterOrMark(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }

// emoji reports the pictographic characters an emoji ZWJ sequence joins: the emoji blocks of
// the Supplementary Multilingual Plane and the older symbol blocks emoji are drawn from.
func emoji(r rune) bool {
	switch {
	case r >= 0x1f000 && r <= 0x1faff, // mahjong … symbols and pictographs extended-A
		r >= 0x2600 && r <= 0x27bf, // miscellaneous symbols, dingbats
		r >= 0x2300 && r <= 0x23ff, // miscellaneous technical (⌚, ⏩)
		r >= 0x2b00 && r <= 0x2bff, // arrows and shapes (⬛, ⭐)
		r >= 0x2190 && r <= 0x21ff, // arrows (↔)
		r == 0x00a9, r == 0x00ae, r == 0x203c, r == 0x2049, r == 0x2122, r == 0x2139,
		r == 0x3030, r == 0x303d, r == 0x3297, r == 0x3299:
		return true
	}
	return false
}

// tags returns the run of tag characters starting at s[i] as one finding, unless it is the
// tail of an emoji subdivision flag.
func tags(s string, i int) (Finding, bool) {
	var hidden strings.Builder
	j := i
	last := rune(0)
	flag := true // every tag so far a lowercase letter or digit
	for j < len(s) {
		r, m := utf8.DecodeRuneInString(s[j:])
		if r < 0xe0000 || r > 0xe007f {
			break
		}
		if last == 0xe007f {
			flag = false // a cancel tag ends a flag's tags
		}
		a := r - 0xe0000
		if a >= 0x20 && a <= 0x7e && hidden.Len() < maxHidden {
			hidden.WriteRune(a)
		}
		if r != 0xe007f && !(a >= '0' && a <= '9' || a >= 'a' && a <= 'z') {
			flag = false
		}
		last = r
		j += m
	}
	p, _ := utf8.DecodeLastRuneInString(s[:i])
	if flag && last == 0xe007f && p == 0x1f3f4 && i > 0 && subdivision(s[i:j]) {
		return Finding{Offset: i, Len: j - i}, false
	}
	return Finding{Class: ClassTag, Offset: i, Len: j - i, Hidden: hidden.String()}, true
}

// subdivision reports whether the tags t (lowercase letters and digits, then U+E007F) spell a
// subdivision code as a flag carries one: a two-letter region and one to four letters or
// digits ("gbeng", "usca"). A longer run is a message, not a flag.
func subdivision(t string) bool {
	n := utf8.RuneCountInString(t) - 1
	if n < 3 || n > 6 {
		return false
	}
	for _, r := range t[:8] { // the region: two tag letters
		if r < 0xe0061 || r > 0xe007a {
			return false
		}
	}
	return true
}

// escapeEnd returns the index after the escape sequence starting at s[i] (ESC or a C1
// introducer): a CSI up to its final byte, a control string (OSC, DCS, SOS, PM, APC) up to
// and with BEL or ST or to the end of s, ESC and one more character otherwise.
func escapeEnd(s string, i int) int {
	r, n := utf8.DecodeRuneInString(s[i:])
	i += n
	switch {
	case r == 0x1b && i < len(s) && s[i] == '[', r == 0x9b:
		if r == 0x1b {
			i++
		}
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			i++
		}
		return i
	case r == 0x1b && i < len(s) && strings.IndexByte("]PX^_", s[i]) >= 0, r != 0x1b:
		if r == 0x1b {
			i++
		}
		for i < len(s) {
			c, m := utf8.DecodeRuneInString(s[i:])
			switch {
			case c == 0x07, c == 0x9c:
				return i + m
			case c == 0x1b:
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
				return i + 1
			}
			i += m
		}
		return i
	case i < len(s):
		_, m := utf8.DecodeRuneInString(s[i:])
		return i + m
	}
	return i
}
