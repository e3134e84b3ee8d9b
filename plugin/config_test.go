package plugin

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	c := Config{
		Dirs:         []string{"/a", ""},
		Marketplaces: []MarketplaceConfig{{Path: "/m", Enable: []string{"*", "ok-name"}}, {Enable: []string{"a:b"}}},
		Disable:      []string{"fine", "Not.Fine"},
	}
	err := c.Validate("plugins")
	want := []string{"plugins.dirs[1]", "plugins.marketplaces[1].path", "plugins.marketplaces[1].enable[0]", "plugins.disable[1]"}
	var keys []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var k interface{ Key() string }
		if !errors.As(e, &k) {
			t.Fatalf("%v has no Key", e)
		}
		if !strings.HasPrefix(e.Error(), k.Key()+": ") {
			t.Errorf("%q does not start with its key", e)
		}
		keys = append(keys, k.Key())
	}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if err := (&Config{Dirs: []string{"/x"}}).Validate("plugins"); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "my-plugin": true, "p2": true, "": false, "-a": false, "a-": false,
		"A": false, "a:b": false, "a.b": false, "a_b": false, strings.Repeat("a", 65): false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v", name, got)
		}
	}
}
