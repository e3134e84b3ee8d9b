package ext

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// encodeURIPart percent-encodes what ParseURI would otherwise read as structure or escapes.
func encodeURIPart(s string, keepSlash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c < 0x21 || c >= 0x7f || (c == '/' && !keepSlash) {
			b.WriteString("%")
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func FuzzParseURI(f *testing.F) {
	for _, s := range []string{
		"skill://pdf/SKILL.md", "skill://acme/billing/refunds/SKILL.md", "mcp://everything/test://static/resource/1",
		"file:///tmp/a%20b.txt", "urn:isbn:1", "skill://pdf/%2e%2e/x", "skill://pdf/%252e", "x://%zz", "x://a/%4",
		"skill://pdf/\x00", "skill://pdf/%00", "1x://y", "", ":", "a:", "a://", "A+B-C.D://h/p?q#f", `skill://pdf/..\x`,
		// Namespaced skills (package skill): skill://<ns>/<name>/<file>, never skill://<ns>:<name>.
		"skill://a/configure/SKILL.md", "skill://a/configure/../../x", "skill://a/../b/configure/SKILL.md",
		"skill://a/configure/%2e%2e/%2e%2e/x", "skill://a/configure/..%2f..%2fetc/passwd", "skill://a:configure/SKILL.md", "skill://a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURI(s)
		if err != nil {
			if !strings.Contains(err.Error(), "invalid URI") {
				t.Fatalf("error without ErrInvalidURI: %v", err)
			}
			return
		}
		if u.Raw != s {
			t.Fatalf("Raw %q != input %q", u.Raw, s)
		}
		if u.Scheme == "" || u.Scheme != strings.ToLower(u.Scheme) || !strings.EqualFold(s[:len(u.Scheme)], u.Scheme) {
			t.Fatalf("bad scheme %q for %q", u.Scheme, s)
		}
		if strings.ContainsRune(u.Authority+u.Path, 0) {
			t.Fatalf("NUL in parsed %q", s)
		}
		if strings.HasPrefix(s[len(u.Scheme)+1:], "//") {
			// Re-encoding the parts gives a URI that parses to the same parts.
			re := u.Scheme + "://" + encodeURIPart(u.Authority, false) + "/" + encodeURIPart(u.Path, true)
			u2, err := ParseURI(re)
			if err != nil {
				t.Fatalf("re-encoded %q of %q: %v", re, s, err)
			}
			if u2.Scheme != u.Scheme || u2.Authority != u.Authority || u2.Path != u.Path {
				t.Fatalf("round trip of %q via %q: %+v != %+v", s, re, u2, u)
			}
		}
		// The skill traversal check never panics and never lets a NUL or backslash through.
		if u.Scheme == "skill" && checkSkillURI(s) == nil {
			if strings.ContainsAny(u.Authority+u.Path, "\x00\\") {
				t.Fatalf("checkSkillURI accepted %q", s)
			}
		}
	})
}

func FuzzConfine(f *testing.F) {
	for _, s := range []string{
		"SKILL.md", "", ".", "..", "../root-evil/secret", "sub/../../x", "%2e%2e/x", "%252e%252e/x",
		`..\x`, "/etc/passwd", "C:/x", "link-out/secret", "file-out", "dangling-out/x", "sub/up/secret",
		"link-in/file.txt", "a\x00b", "100%.txt", "%zz/%2e%2e/%2e%2e",
	} {
		f.Add(s)
	}
	root, real := confineTree(f)
	f.Fuzz(func(t *testing.T, rel string) {
		p, err := Confine(root, rel)
		if err != nil {
			return
		}
		if p != real && !strings.HasPrefix(p, real+string(filepath.Separator)) {
			t.Fatalf("Confine(%q) = %q, outside %q", rel, p, real)
		}
		if resolved, err := filepath.EvalSymlinks(p); err != nil || resolved != p {
			t.Fatalf("Confine(%q) = %q, which resolves to %q (%v)", rel, p, resolved, err)
		}
		file, err := OpenConfined(root, rel)
		if info, serr := os.Stat(p); serr == nil && info.IsDir() {
			// OpenConfined opens regular files only: a folder is not found.
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("OpenConfined(%q), a folder: %v, want ErrNotFound", rel, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Confine(%q) succeeded but OpenConfined failed: %v", rel, err)
		}
		defer file.Close()
		fi, err := file.Stat()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.Stat(p)
		if err != nil || !os.SameFile(fi, want) {
			t.Fatalf("OpenConfined(%q) opened another file than %q", rel, p)
		}
	})
}
