package ext

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURI(t *testing.T) {
	cases := []struct {
		in   string
		want URI
	}{
		{"skill://pdf/SKILL.md", URI{Scheme: "skill", Authority: "pdf", Path: "SKILL.md"}},
		{"SKILL://pdf/references/FORMS.md", URI{Scheme: "skill", Authority: "pdf", Path: "references/FORMS.md"}},
		{"skill://acme/billing/refunds/SKILL.md", URI{Scheme: "skill", Authority: "acme", Path: "billing/refunds/SKILL.md"}},
		{"skill://pdf", URI{Scheme: "skill", Authority: "pdf"}},
		{"mcp://everything/test://static/resource/1", URI{Scheme: "mcp", Authority: "everything", Path: "test://static/resource/1"}},
		{"file:///tmp/a%20b.txt", URI{Scheme: "file", Path: "tmp/a b.txt"}},
		{"skill://p%64f/%2e%2e/x", URI{Scheme: "skill", Authority: "pdf", Path: "../x"}},
		{"urn:isbn:0451450523", URI{Scheme: "urn", Path: "isbn:0451450523"}},
		{"git+ssh://host/repo", URI{Scheme: "git+ssh", Authority: "host", Path: "repo"}},
		{"a.b-c://x/y?q=1#f", URI{Scheme: "a.b-c", Authority: "x", Path: "y?q=1#f"}},
	}
	for _, tc := range cases {
		got, err := ParseURI(tc.in)
		if err != nil {
			t.Fatalf("ParseURI(%q): %v", tc.in, err)
		}
		tc.want.Raw = tc.in
		if got != tc.want {
			t.Fatalf("ParseURI(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseURIErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "missing scheme"},
		{"no-colon", "missing scheme"},
		{"://x", "empty scheme"},
		{"1abc://x", "invalid scheme"},
		{"sk ill://x", "invalid scheme"},
		{"skill://pdf/\x00", "NUL byte at offset 12"},
		{"skill://pdf/%00", "encoded NUL"},
		{"skill://pdf/%zz", `invalid percent-escape "%zz"`},
		{"skill://pdf/%4", "truncated percent-escape"},
		{"skill://p%g0/x", "authority"},
	}
	for _, tc := range cases {
		_, err := ParseURI(tc.in)
		if !errors.Is(err, ErrInvalidURI) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("ParseURI(%q): got %v, want ErrInvalidURI containing %q", tc.in, err, tc.want)
		}
	}
}
