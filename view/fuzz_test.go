package view

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Any name maps to one the rule accepts, always the same; a set of distinct qualified names
// maps to distinct served names, whatever their order. Each input is joined by the names that
// would meet it: its ServedName as a listed name, and the other input's.
func FuzzToolName(f *testing.F) {
	for _, seed := range [][2]string{
		{"deploy.api__read_graph", "deploy_api__read_graph"},
		{"", "_"},
		{"github__create_issue", "<script>alert(1)</script>"},
		{"read\x1b]0;pwned\x07graph", "café__x"},
		{strings.Repeat("p", 80) + "__echo", strings.Repeat("p", 80) + "__pid"},
		{strings.Repeat("é", 70), strings.Repeat("\xff", 70)},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, q := range []string{a, b} {
			s := ServedName(q)
			if !ValidToolName(s) || !nameRule(s) {
				t.Fatalf("ServedName(%q) = %q, which the rule refuses", q, s)
			}
			if s2 := ServedName(q); s2 != s {
				t.Fatalf("ServedName(%q) = %q, then %q", q, s, s2)
			}
			if ValidToolName(q) != nameRule(q) {
				t.Fatalf("ValidToolName(%q) = %v, the rule says %v", q, ValidToolName(q), nameRule(q))
			}
		}
		set := []string{a, b, ServedName(a), ServedName(b), sanitize(a), hashedName(b, 0)}
		slices.Sort(set)
		set = slices.Compact(set)
		served := servedNames(set)
		seen := map[string]string{}
		for _, q := range set {
			s, ok := served[q]
			if !ok || !nameRule(s) {
				t.Fatalf("%q served as %q (%v)", q, s, ok)
			}
			if other, dup := seen[s]; dup {
				t.Fatalf("%q and %q both served as %q", other, q, s)
			}
			seen[s] = q
		}
		slices.Reverse(set)
		if again := servedNames(set); !maps.Equal(again, served) {
			t.Fatalf("the names depend on the order: %v, then %v", served, again)
		}
	})
}

// rule is ^[a-zA-Z0-9_-]{1,64}$, apart from ValidToolName's own loop.
var rule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func nameRule(s string) bool { return rule.MatchString(s) }
