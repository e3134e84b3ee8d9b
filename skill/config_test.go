package skill

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	if err := (&Config{Debounce: time.Second, MaxFolders: 3}).Validate("skills"); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	err := (&Config{Debounce: -time.Millisecond, MaxFolders: -1}).Validate("skills")
	var keys []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var k interface{ Key() string }
		if !errors.As(e, &k) || !strings.HasPrefix(e.Error(), k.Key()+": ") {
			t.Fatalf("problem %q has no key or does not start with it", e)
		}
		keys = append(keys, k.Key())
	}
	if got := strings.Join(keys, ","); got != "skills.debounce,skills.max_folders" {
		t.Errorf("keys = %s", got)
	}
}

func TestConfigWatching(t *testing.T) {
	off := false
	for _, tc := range []struct {
		watch       *bool
		want, wants bool
	}{{nil, true, true}, {nil, false, false}, {&off, true, false}} {
		if got := (Config{Watch: tc.watch}).Watching(tc.want); got != tc.wants {
			t.Errorf("Watching(%v) with watch %v = %v", tc.want, tc.watch, got)
		}
	}
}
