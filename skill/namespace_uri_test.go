package skill

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
)

// namespacedURIManager is namespaceTree with secrets beside the plugin folder and a user
// skill named "a", like namespace a.
func namespacedURIManager(t testing.TB) *Manager {
	base := t.TempDir()
	user := filepath.Join(base, "user")
	plug := filepath.Join(base, "plug-a", "skills")
	write(t, user, "configure/SKILL.md", skillMD("name: configure\ndescription: The user's own.\n", "User body"))
	write(t, user, "a/SKILL.md", skillMD("name: a\ndescription: Named like the namespace.\n", "Bare a"))
	write(t, user, "a/x.md", "bare a file")
	write(t, user, "a/configure/notes.md", "hidden by a:configure")
	write(t, plug, "configure/SKILL.md", skillMD("name: configure\ndescription: Plugin a configures.\n", "A body"))
	write(t, plug, "deploy/SKILL.md", skillMD("name: deploy\ndescription: Plugin a deploys.\n", "Deploy body"))
	write(t, plug, "deploy/ref.md", "# Ref\n")
	write(t, base, "plug-a/secret.txt", "SECRET")
	write(t, base, "x", "SECRET")
	write(t, base, "etc/passwd", "SECRET")
	m, err := NewManager(&Options{Roots: []string{user}, NamespacedRoots: []NamespacedRoot{
		{Namespace: "a", Dir: plug}, {Namespace: "c", Dir: filepath.Join(base, "missing")}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

// TestNamespacedURIs: ReadSkill and SkillExists take skill://<ns>/<name>/<path>, confined to the
// skill folder in every form; skill://a:configure is not a URI of a:configure.
func TestNamespacedURIs(t *testing.T) {
	m := namespacedURIManager(t)
	ctx := context.Background()
	cases := []struct {
		uri  string
		text string // the content read; "" when the read fails with err
		err  error
	}{
		{"skill://a/configure/SKILL.md", "A body", nil},
		{"skill://a/configure", "A body", nil},
		{"skill://a/configure/", "A body", nil}, // as skill://configure/ is the SKILL.md
		{"skill://a/deploy/ref.md", "# Ref", nil},
		{"skill://configure/SKILL.md", "User body", nil},
		{"skill://a/SKILL.md", "Bare a", nil}, // the user's skill a: namespace a has no skill "SKILL.md"
		{"skill://a/x.md", "bare a file", nil},
		{"skill://a/configure/notes.md", "", ext.ErrNotFound}, // a:configure's, which has none
		{"skill://a/configure/../../x", "", ext.ErrPathTraversal},
		{"skill://a/configure/../deploy/ref.md", "", ext.ErrPathTraversal},
		{"skill://a/configure/%2e%2e/%2e%2e/secret.txt", "", ext.ErrPathTraversal},
		{"skill://a/configure/..%2f..%2f..%2fetc/passwd", "", ext.ErrPathTraversal},
		{"skill://a/configure/%252e%252e/secret.txt", "", ext.ErrPathTraversal}, // decoded twice
		{"skill://a/../b/configure/SKILL.md", "", ext.ErrPathTraversal},         // the user's a, then out
		{"skill://a/%2e%2e/secret.txt", "", ext.ErrPathTraversal},
		{"skill://c/configure/SKILL.md", "", ext.ErrNotFound},
		{"skill://z/configure/SKILL.md", "", ext.ErrNotFound},
		{"skill://a:configure/SKILL.md", "", ext.ErrNotFound},
		{"skill://a.configure/SKILL.md", "", ext.ErrNotFound},
		{"skill://a%2fconfigure/SKILL.md", "", ext.ErrNotFound},
		{"skill://c", "", ext.ErrNotFound},
	}
	// The user's skill a holds configure/, which skill://a/configure/... cannot reach: said once.
	d := m.Diagnostics()
	if len(d) != 1 || d[0].Severity != SeverityWarning || !strings.HasSuffix(d[0].Path, filepath.Join("a", "SKILL.md")) ||
		!strings.Contains(d[0].Message, "skill://a/configure/") || !strings.Contains(d[0].Message, `"a:configure"`) {
		t.Errorf("diagnostics:\n%s\nwant one warning on skill a", diagList(d))
	}
	for _, c := range cases {
		res, err := m.ReadSkill(ctx, c.uri)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("ReadSkill(%q) = %v, %v; want %v", c.uri, res, err, c.err)
			}
		} else if err != nil || len(res) != 1 || !strings.Contains(res[0].Text, c.text) || res[0].URI != c.uri {
			t.Errorf("ReadSkill(%q) = %+v, %v; want %q", c.uri, res, err, c.text)
		}
		ok, eerr := m.SkillExists(ctx, c.uri)
		switch {
		case c.err == nil && (!ok || eerr != nil):
			t.Errorf("SkillExists(%q) = %v, %v; want true", c.uri, ok, eerr)
		case errors.Is(c.err, ext.ErrPathTraversal) && !errors.Is(eerr, ext.ErrPathTraversal):
			t.Errorf("SkillExists(%q) = %v, %v; want ErrPathTraversal", c.uri, ok, eerr)
		case c.err != nil && ok:
			t.Errorf("SkillExists(%q) = true, want false", c.uri)
		}
	}
}

// FuzzNamespacedURI: whatever the URI, ReadSkill never returns a file from outside the skill
// folders, and SkillExists agrees with it.
func FuzzNamespacedURI(f *testing.F) {
	for _, s := range []string{
		"skill://a/configure/SKILL.md", "skill://a/configure", "skill://a/deploy/ref.md", "skill://a",
		"skill://a/configure/../../x", "skill://a/../b/configure/SKILL.md", "skill://a/configure/%2e%2e/%2e%2e/x",
		"skill://a/configure/..%2f..%2fetc/passwd", "skill://a:configure/SKILL.md", "skill://c/configure",
		"skill://a/configure/%252e%252e/secret.txt", "skill://a%2fconfigure/SKILL.md", "skill://a/%2e%2e/secret.txt",
		"skill://a/configure/..\\..\\x", "skill://a/configure/\x00", "skill:///a/configure", "skill://a//configure",
	} {
		f.Add(s)
	}
	m := namespacedURIManager(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, uri string) {
		res, err := m.ReadSkill(ctx, uri)
		if err == nil {
			for _, c := range res {
				if strings.Contains(c.Text, "SECRET") || strings.Contains(string(c.Blob), "SECRET") {
					t.Fatalf("ReadSkill(%q) read a file outside the skills", uri)
				}
			}
		}
		ok, eerr := m.SkillExists(ctx, uri)
		if ok && err != nil {
			t.Fatalf("SkillExists(%q) true but ReadSkill: %v", uri, err)
		}
		if eerr == nil && !ok && err == nil {
			t.Fatalf("SkillExists(%q) false but ReadSkill read it", uri)
		}
	})
}

// TestWatchNamespacedRoot: a skill added under a namespaced root, or under one created after
// the start, appears qualified after the debounce, with its namespaced URI in the event.
func TestWatchNamespacedRoot(t *testing.T) {
	base := t.TempDir()
	plug, later := filepath.Join(base, "plug"), filepath.Join(base, "later", "skills")
	write(t, plug, "configure/SKILL.md", skillMD("name: configure\ndescription: First.\n", "Body"))
	m := newTestManager(t, &Options{Watch: true, Debounce: 20 * time.Millisecond,
		NamespacedRoots: []NamespacedRoot{{Namespace: "a", Dir: plug}, {Namespace: "b", Dir: later}}})
	rec := record(m)
	mark := rec.mark()
	write(t, plug, "added/SKILL.md", skillMD("name: added\ndescription: Added.\n", "Body"))
	testwait.For(t, "a:added", func() bool { return m.Skill("a:added") != nil })
	testwait.For(t, "its event", func() bool {
		for _, ev := range rec.since(mark) {
			if ev.Kind == ext.SkillsChanged && ev.SourceURI == "skill://a/added/SKILL.md" {
				return true
			}
		}
		return false
	})
	write(t, later, "late/SKILL.md", skillMD("name: late\ndescription: Late.\n", "Body"))
	testwait.For(t, "b:late", func() bool { return m.Skill("b:late") != nil })
	if m.Skill("added") != nil || m.Skill("late") != nil {
		t.Errorf("a namespaced skill is found by its bare name")
	}
}

// TestNamespacedURIsThroughRegistry: the registry's skill:// routing (outermost skill path
// first) reaches a namespaced skill's files, and the bare skill named like the namespace keeps
// its own.
func TestNamespacedURIsThroughRegistry(t *testing.T) {
	m := namespacedURIManager(t)
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { _ = reg.Close(context.Background()) })
	if err := reg.Register(m, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	for uri, want := range map[string]string{
		"skill://a/deploy/ref.md":      "# Ref",
		"skill://a/configure/SKILL.md": "A body",
		"skill://a/x.md":               "bare a file",
	} {
		res, err := reg.ResolveURI(context.Background(), uri, ext.Scope{})
		if err != nil || len(res) != 1 || !strings.Contains(res[0].Text, want) {
			t.Errorf("ResolveURI(%s) = %+v, %v; want %q", uri, res, err, want)
		}
	}
	if _, err := reg.ResolveURI(context.Background(), "skill://a/configure/../../x", ext.Scope{}); !errors.Is(err, ext.ErrPathTraversal) {
		t.Errorf("ResolveURI(traversal) = %v", err)
	}
}
