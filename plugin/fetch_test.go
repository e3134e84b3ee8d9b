package plugin

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFetchCommandQuoted: the command shown for a source not on disk is one a user may paste
// into a shell, and the marketplace file (not the user) writes its url and ref: each is
// quoted for the shell, and a url that reads as an option is kept from being one.
func TestFetchCommandQuoted(t *testing.T) {
	root := writeTree(t, map[string]string{".agents/plugins/marketplace.json": `{"name": "m", "plugins": [
  {"name": "plain", "source": {"source": "url", "url": "https://example.com/p.git", "ref": "v1.2"}},
  {"name": "semi", "source": {"source": "url", "url": "https://example.com/p.git; touch /tmp/pwned"}},
  {"name": "subst", "source": {"source": "url", "url": "https://example.com/p.git", "ref": "main$(touch /tmp/pwned)"}},
  {"name": "quote", "source": {"source": "github", "repo": "o/r'x"}},
  {"name": "option", "source": {"source": "url", "url": "--upload-pack=touch /tmp/pwned"}}
]}`})
	m := ReadMarketplace(filepath.Join(root, ".agents", "plugins", "marketplace.json"))
	if len(m.Diagnostics) > 0 {
		t.Fatalf("diagnostics %v", m.Diagnostics)
	}
	got := map[string]string{}
	for _, e := range m.Entries {
		got[e.Name] = e.Fetch
	}
	want := map[string]string{
		"plain":  "git clone --branch v1.2 https://example.com/p.git",
		"semi":   "git clone 'https://example.com/p.git; touch /tmp/pwned'",
		"subst":  "git clone --branch 'main$(touch /tmp/pwned)' https://example.com/p.git",
		"quote":  `git clone 'https://github.com/o/r'\''x.git'`,
		"option": "git clone -- '--upload-pack=touch /tmp/pwned'",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fetch commands (-want +got):\n%s", d)
	}
}
