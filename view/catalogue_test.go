package view

import (
	"fmt"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// Catalogue.String names the skills cut, at most 20 of them.
func TestCatalogueString(t *testing.T) {
	var cut []string
	for i := range 23 {
		cut = append(cut, fmt.Sprintf("s%02d", i))
	}
	for _, tc := range []struct {
		c    Catalogue
		want string
	}{
		{Catalogue{"skills", ext.Catalogue{Budget: 0, Chars: 90, Bytes: 91, Listed: 3, Cut: []string{}}},
			"skills: 90 characters, no budget (91 bytes), 3 listed, none cut"},
		{Catalogue{"skills", ext.Catalogue{Budget: 100, Chars: 90, Bytes: 91, Listed: 3, Cut: []string{"x", "y"}}},
			"skills: 90 of 100 characters (91 bytes), 3 listed, 2 cut: x, y"},
		{Catalogue{"agent-skills", ext.Catalogue{Budget: 100, Chars: 90, Bytes: 90, Listed: 1, Cut: cut}},
			"agent-skills: 90 of 100 characters (90 bytes), 1 listed, 23 cut: s00, s01, s02, s03, s04, s05, s06, s07, s08, s09, " +
				"s10, s11, s12, s13, s14, s15, s16, s17, s18, s19 and 3 more"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
