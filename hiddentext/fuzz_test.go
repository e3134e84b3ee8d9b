package hiddentext_test

import (
	"testing"

	"github.com/agentpool/agentpool/hiddentext"
)

// FuzzSanitize checks that Sanitize leaves nothing Scan finds, is idempotent, removes exactly
// the spans of its first pass's findings when one pass suffices, and never panics.
func FuzzSanitize(f *testing.F) {
	for _, in := range injections {
		f.Add("Echo back " + in.text + " the input")
	}
	for _, s := range []string{"", "👩‍💻", "<!--", "\x1b", "\x1b]", "\xe2\x80\x1b[m\x8b", "a\ufe0f\ufe0f", "🏴" + tagged("gbeng") + "\U000e007f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		clean, found := hiddentext.Sanitize(s)
		if again := hiddentext.Scan(clean); again != nil {
			t.Fatalf("Sanitize(%q) = %q, which still has %v", s, clean, again)
		}
		if twice, more := hiddentext.Sanitize(clean); twice != clean || more != nil {
			t.Fatalf("Sanitize is not idempotent: %q → %q → %q", s, clean, twice)
		}
		if (len(found) == 0) != (clean == s) {
			t.Fatalf("Sanitize(%q) = %q with findings %v", s, clean, found)
		}
		last := 0
		for _, f := range hiddentext.Scan(s) {
			if f.Offset < last || f.Len <= 0 || f.Offset+f.Len > len(s) {
				t.Fatalf("Scan(%q): finding %v overlaps or leaves the text", s, f)
			}
			last = f.Offset + f.Len
		}
	})
}
