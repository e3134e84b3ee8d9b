package mcpcap

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// FuzzCheckSkillURI: checkSkillURI never panics, only fails with ErrPathTraversal, and never
// accepts a URI that decodes (up to three rounds of percent-decoding) to a dot segment,
// backslash or NUL.
func FuzzCheckSkillURI(f *testing.F) {
	for _, s := range []string{
		"skill://pdf/SKILL.md", "skill://acme/billing/refunds/examples/email.md", "skill://x/../y",
		"skill://x/%2e%2e/y", "skill://x/%252e%252E/y", `skill://x/..\y`, "skill://x/a\x00", "skill://x/%00",
		"skill://x/%5c", "skill://x/./y", "skill://x/%zz", "mcp://srv/skill://x/SKILL.md", "", "://", "skill:///",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		err := checkSkillURI(uri)
		if err != nil {
			if !errors.Is(err, ext.ErrPathTraversal) {
				t.Fatalf("checkSkillURI(%q) = %v, want ErrPathTraversal", uri, err)
			}
			return
		}
		dec := uri
		for i := 0; i < 3; i++ {
			d, err := url.PathUnescape(dec)
			if err != nil {
				t.Fatalf("accepted %q with malformed escapes", uri)
			}
			dec = d
		}
		if strings.ContainsAny(dec, "\\\x00") {
			t.Fatalf("accepted %q: decodes to a backslash or NUL", uri)
		}
		_, rest, ok := strings.Cut(dec, "://")
		if !ok {
			rest = dec
		}
		for _, seg := range strings.Split(rest, "/") {
			if seg == ".." || seg == "." {
				t.Fatalf("accepted %q: decodes to dot segment", uri)
			}
		}
	})
}

// FuzzUnwrapURI: unwrapURI never panics, and what it returns for an mcp:// URI is the
// original URI after this server's prefix.
func FuzzUnwrapURI(f *testing.F) {
	c := &Cap{cfg: Config{Name: "srv"}}
	for _, s := range []string{"mcp://srv/test://a", "mcp://other/x", "mcp://srv/", "mcp://srv", "test://x", "mcp:///x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		got, ok := c.unwrapURI(uri)
		if !ok {
			return
		}
		if strings.HasPrefix(uri, "mcp://") && "mcp://srv/"+got != uri {
			t.Fatalf("unwrapURI(%q) = %q", uri, got)
		}
		if !strings.HasPrefix(uri, "mcp://") && got != uri {
			t.Fatalf("unwrapURI(%q) = %q, want unchanged", uri, got)
		}
	})
}
