package mcpcap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/skill"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newSkillPool returns a pool whose clients can call skills/list and skills/get when
// configure is RegisterSkillMethods (as package config sets it), closed at the end of the test.
func newSkillPool(t *testing.T, configure func(*mcp.Client) error) *connpool.Pool {
	t.Helper()
	p := connpool.New(&connpool.Options{KillGrace: 500 * time.Millisecond, IdleTimeout: -1, ConfigureClient: configure})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("pool close: %v", err)
		}
	})
	return p
}

func skillURIs(t *testing.T, c *Cap) map[string]ext.SkillEntry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := c.ListSkills(ctx)
	if err != nil {
		t.Fatalf("ListSkills: %v", err)
	}
	out := map[string]ext.SkillEntry{}
	for _, e := range list {
		if _, dup := out[e.URI]; dup {
			t.Errorf("skill %s listed twice", e.URI)
		}
		out[e.URI] = e
	}
	return out
}

func readText(t *testing.T, what string, read func(context.Context, string) ([]ext.ResourceContents, error), uri string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rc, err := read(ctx, uri)
	if err != nil {
		t.Fatalf("%s %s: %v", what, uri, err)
	}
	if len(rc) != 1 {
		t.Fatalf("%s %s: %d contents, want 1", what, uri, len(rc))
	}
	return rc[0].Text
}

// TestSEP2640SkillsThroughPool: a pooled client configured with RegisterSkillMethods lists a
// real faultserver's skills through skills/list (including one absent from resources/list),
// reads their files, refuses traversal and unlisted URIs, and, in a registry next to a local
// skill source, never shadows the local skill of the same name.
func TestSEP2640SkillsThroughPool(t *testing.T) {
	bin := testserver.Build(t)
	p := newSkillPool(t, RegisterSkillMethods)
	c := newPoolCap(t, p, "", Config{Name: "remote", Server: connpool.ServerConfig{Command: bin, Args: []string{"--skills"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	got := skillURIs(t, c)
	want := map[string]string{ // URI → name
		"skill://remote-review/SKILL.md":        "remote-review",
		"skill://pdf/SKILL.md":                  "pdf",
		"skill://acme/billing/refunds/SKILL.md": "refunds", // only skills/list reveals it
	}
	if len(got) != len(want) {
		t.Fatalf("ListSkills = %v, want %v", got, want)
	}
	for uri, name := range want {
		e, ok := got[uri]
		if !ok || e.Name != name || e.Origin != "mcp://remote" || e.Description == "" {
			t.Errorf("skill %s: %+v (present %v), want name %q, origin mcp://remote, a description", uri, e, ok, name)
		}
	}
	if d := got["skill://acme/billing/refunds/SKILL.md"].Description; d != "Process refunds per policy." {
		t.Errorf("refunds description %q, want the frontmatter's", d)
	}

	for uri, wantText := range map[string]string{
		"skill://remote-review/SKILL.md":                 "# Remote review",
		"skill://remote-review/references/CHECKLIST.md":  "- tests added",
		"skill://pdf/references/FORMS.md":                "Fill the remote forms.",
		"skill://acme/billing/refunds/SKILL.md":          "# Refunds",
		"skill://acme/billing/refunds/examples/email.md": "your refund is on its way",
		"mcp://remote/skill://pdf/SKILL.md":              "This is the REMOTE pdf skill.",
	} {
		if text := readText(t, "ReadSkill", c.ReadSkill, uri); !strings.Contains(text, wantText) {
			t.Errorf("ReadSkill %s = %q, want it to contain %q", uri, text, wantText)
		}
		if ok, err := c.SkillExists(ctx, uri); !ok || err != nil {
			t.Errorf("SkillExists %s = %v, %v", uri, ok, err)
		}
	}

	for _, uri := range []string{
		"skill://pdf/../remote-review/SKILL.md",
		"skill://pdf/%2e%2e/remote-review/SKILL.md",
		"skill://pdf/%2E%2e/%2e%2e/etc/passwd",
		"skill://pdf/%252e%252e/remote-review/SKILL.md",
		"skill://pdf/./SKILL.md",
		`skill://pdf/..\remote-review\SKILL.md`,
		"skill://pdf/%5c..%5cSKILL.md",
		"skill://pdf/SKILL.md\x00.txt",
		"skill://pdf/SKILL.md%00",
		"skill://acme/billing/refunds/../../../remote-review/SKILL.md",
		"mcp://remote/skill://pdf/../remote-review/SKILL.md",
	} {
		if _, err := c.ReadSkill(ctx, uri); !errors.Is(err, ext.ErrPathTraversal) {
			t.Errorf("ReadSkill %q: err = %v, want ErrPathTraversal", uri, err)
		}
		if ok, err := c.SkillExists(ctx, uri); ok || err != nil {
			t.Errorf("SkillExists %q = %v, %v; want false, nil", uri, ok, err)
		}
	}
	for _, uri := range []string{
		"skill://pdf/secret.md",                  // not listed
		"skill://acme/billing/other/SKILL.md",    // the server's template would be asked; the Cap must not
		"skill://remote-pdf/SKILL.md",            // unknown skill
		"mcp://elsewhere/skill://pdf/SKILL.md",   // another server's name
		"skill://remote-review-evil/SKILL.md",    // sibling of a listed skill
		"skill://remote-review/references/x.md",  // sibling of a listed file
		"skill://acme/billing/refunds/SKILL.md/", // listed file as a folder
	} {
		if _, err := c.ReadSkill(ctx, uri); !errors.Is(err, ext.ErrNotFound) {
			t.Errorf("ReadSkill %q: err = %v, want ErrNotFound", uri, err)
		}
	}

	// A registry holding a local skill source and the Cap (registered first, so the order of
	// registration cannot be what keeps the local skill on top).
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Local pdf skill.\n---\n# Local pdf\n\nThis is the LOCAL pdf skill.\n")
	writeFile(t, filepath.Join(dir, "pdf", "references", "FORMS.md"), "# Local forms\n")
	m, err := skill.NewManager(&skill.Options{Name: "local-skills", Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	reg := ext.NewRegistry(nil)
	defer func() {
		if err := reg.Close(context.Background()); err != nil {
			t.Errorf("registry close: %v", err)
		}
	}()
	if err := reg.Register(c, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(m, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	scope := ext.Scope{SessionID: "s1", AgentName: "main"}
	resolve := func(ctx context.Context, uri string) ([]ext.ResourceContents, error) {
		return reg.ResolveURI(ctx, uri, scope)
	}
	for uri, wantText := range map[string]string{
		"skill://pdf/SKILL.md":                  "This is the LOCAL pdf skill.",
		"skill://pdf/references/FORMS.md":       "# Local forms",
		"skill://remote-review/SKILL.md":        "# Remote review",
		"skill://acme/billing/refunds/SKILL.md": "# Refunds",
		"mcp://remote/skill://pdf/SKILL.md":     "This is the REMOTE pdf skill.", // explicit addressing still reaches it
	} {
		if text := readText(t, "ResolveURI", resolve, uri); !strings.Contains(text, wantText) {
			t.Errorf("ResolveURI %s = %q, want it to contain %q", uri, text, wantText)
		}
	}
	if _, err := reg.ResolveURI(ctx, "skill://pdf/%2e%2e/remote-review/SKILL.md", scope); !errors.Is(err, ext.ErrPathTraversal) {
		t.Errorf("ResolveURI traversal: %v, want ErrPathTraversal", err)
	}
	var origins []string
	for _, sr := range reg.SkillResources(scope) {
		list, err := sr.ListSkills(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			if e.Name == "pdf" {
				origins = append(origins, e.Origin)
			}
		}
	}
	// Both pdf skills stay visible, each under its own origin (SEP-2640: per-origin namespaces).
	slices.Sort(origins)
	if want := []string{filepath.Join(dir, "pdf"), "mcp://remote"}; !slices.Equal(origins, want) {
		t.Errorf("pdf origins = %q, want %q", origins, want)
	}
}

// TestSEP2640FallbackWithoutConfigureClient: a pool that does not register the SEP-2640
// methods still finds the server's skills through resources/list (skill://…/SKILL.md), and
// only those: the skill that skills/list alone reveals is neither listed nor readable.
func TestSEP2640FallbackWithoutConfigureClient(t *testing.T) {
	bin := testserver.Build(t)
	p := newSkillPool(t, nil)
	c := newPoolCap(t, p, "", Config{Name: "remote", Server: connpool.ServerConfig{Command: bin, Args: []string{"--skills"}}})
	got := skillURIs(t, c)
	keys := make([]string, 0, len(got))
	for k, e := range got {
		keys = append(keys, k)
		if e.Origin != "mcp://remote" {
			t.Errorf("%s: origin %q", k, e.Origin)
		}
	}
	slices.Sort(keys)
	if want := []string{"skill://pdf/SKILL.md", "skill://remote-review/SKILL.md"}; !slices.Equal(keys, want) {
		t.Fatalf("fallback ListSkills = %v, want %v", keys, want)
	}
	if got["skill://remote-review/SKILL.md"].Name != "remote-review" {
		t.Errorf("fallback entry %+v", got["skill://remote-review/SKILL.md"])
	}
	if text := readText(t, "ReadSkill", c.ReadSkill, "skill://remote-review/references/CHECKLIST.md"); !strings.Contains(text, "- docs updated") {
		t.Errorf("fallback read of the extra file = %q", text)
	}
	if text := readText(t, "ReadSkill", c.ReadSkill, "skill://pdf/SKILL.md"); !strings.Contains(text, "REMOTE pdf") {
		t.Errorf("fallback read of SKILL.md = %q", text)
	}
	ctx := context.Background()
	if _, err := c.ReadSkill(ctx, "skill://acme/billing/refunds/SKILL.md"); !errors.Is(err, ext.ErrNotFound) {
		t.Errorf("ReadSkill of a skill only skills/list reveals, without the method: %v, want ErrNotFound", err)
	}
	if _, err := c.ReadSkill(ctx, "skill://remote-review/%2e%2e/pdf/SKILL.md"); !errors.Is(err, ext.ErrPathTraversal) {
		t.Errorf("fallback traversal: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
