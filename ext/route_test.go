package ext

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func readText(t *testing.T, r *Registry, uri string, scope Scope) string {
	t.Helper()
	out, err := r.ResolveURI(context.Background(), uri, scope)
	if err != nil {
		t.Fatalf("ResolveURI(%q): %v", uri, err)
	}
	if len(out) != 1 {
		t.Fatalf("ResolveURI(%q): %d parts", uri, len(out))
	}
	return out[0].Text
}

func TestResolveSkillLocalFirstExistsBeforeRead(t *testing.T) {
	r := newTestRegistry(t)
	const uri = "skill://pdf/SKILL.md"
	// Registered first and at pool level, but backed by an MCP server: asked after local ones.
	remote := newMCPCap(t, "upstream", nil, uri, "skill://remote-only/SKILL.md")
	empty := newSkillCap(t, "empty") // says no to everything; reading it fails the test
	local := newSkillCap(t, "local", uri)
	if err := r.Register(remote, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(empty, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(local, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	s := Scope{SessionID: "s"}
	if got := readText(t, r, uri, s); got != "local:"+uri {
		t.Fatalf("local skill not preferred: %q", got)
	}
	if remote.skills.exists.Load() != 0 {
		t.Fatal("the MCP-backed skill source was asked although a local one had the skill")
	}
	if got := readText(t, r, "skill://remote-only/SKILL.md", s); got != "upstream:skill://remote-only/SKILL.md" {
		t.Fatalf("remote skill: %q", got)
	}
	if empty.exists.Load() == 0 || empty.reads.Load() != 0 {
		t.Fatalf("empty source: %d exists, %d reads", empty.exists.Load(), empty.reads.Load())
	}
	// Another session does not see the local source: the remote one answers.
	if got := readText(t, r, uri, Scope{SessionID: "other"}); got != "upstream:"+uri {
		t.Fatalf("other session: %q", got)
	}
	_, err := r.ResolveURI(context.Background(), "skill://nobody/SKILL.md", s)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing skill: %v", err)
	}
}

func TestResolveSkillFallsBackToSchemeRoutes(t *testing.T) {
	r := newTestRegistry(t)
	const uri = "skill://served/SKILL.md"
	srv := newMCPCap(t, "srv", []string{uri})
	unrouted := newMCPCap(t, "unrouted", []string{uri}) // has it, but not registered for skill
	if err := r.Register(unrouted, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(srv, LevelPool, Scope{}, WithSchemes("Skill")); err != nil {
		t.Fatal(err)
	}
	if got := readText(t, r, uri, Scope{}); got != "srv:"+uri {
		t.Fatalf("fallback: %q", got)
	}
}

func TestResolveMCP(t *testing.T) {
	r := newTestRegistry(t)
	everything := newMCPCap(t, "everything", []string{"test://static/resource/1", "file:///a%20b.txt"})
	decoy := newMCPCap(t, "decoy", []string{"test://static/resource/1"})
	if err := r.Register(decoy, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(everything, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	s := Scope{SessionID: "s"}
	if got := readText(t, r, "mcp://everything/test://static/resource/1", s); got != "everything:test://static/resource/1" {
		t.Fatalf("got %q", got)
	}
	// The upstream URI keeps its own escapes.
	if got := readText(t, r, "mcp://everything/file:///a%20b.txt", s); got != "everything:file:///a%20b.txt" {
		t.Fatalf("got %q", got)
	}
	ctx := context.Background()
	if _, err := r.ResolveURI(ctx, "mcp://everything/test://static/resource/1", Scope{SessionID: "other"}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"everything"`) {
		t.Fatalf("invisible server: %v", err)
	}
	if _, err := r.ResolveURI(ctx, "mcp://everything/test://nope", s); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing resource: %v", err)
	}
	for _, bad := range []string{"mcp://everything", "mcp://everything/", "mcp:///test://x"} {
		if _, err := r.ResolveURI(ctx, bad, s); !errors.Is(err, ErrInvalidURI) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func TestResolveOtherSchemes(t *testing.T) {
	r := newTestRegistry(t)
	files := newResCap(t, "files", "file:///etc/motd")
	tests := newResCap(t, "tests", "test://x")
	plain := newCap("plain") // registered for a scheme but not a ResourceSource
	if err := r.Register(files, LevelPool, Scope{}, WithSchemes("file")); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(tests, LevelAgent, Scope{AgentName: "ag"}, WithSchemes("test", "TEST")); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(plain, LevelPool, Scope{}, WithSchemes("gopher")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got := readText(t, r, "FILE:///etc/motd", Scope{}); got != "files:file:///etc/motd" {
		t.Fatalf("scheme not matched case-insensitively: %q", got)
	}
	if got := readText(t, r, "test://x", Scope{AgentName: "ag"}); got != "tests:test://x" {
		t.Fatalf("got %q", got)
	}
	for _, tc := range []struct {
		uri   string
		scope Scope
	}{
		{"ftp://x", Scope{}},
		{"test://x", Scope{AgentName: "other"}}, // the route exists but is not visible here
		{"gopher://x", Scope{}},
	} {
		_, err := r.ResolveURI(ctx, tc.uri, tc.scope)
		scheme, _, _ := strings.Cut(tc.uri, ":")
		// The schemes known in the caller's scope: file (files, registered at pool), and the
		// two ResolveURI routes itself; test is registered for agent ag only.
		want := `unknown URI scheme "` + scheme + `" in "` + tc.uri + `" (known schemes: file, mcp, skill)`
		if !errors.Is(err, ErrUnknownScheme) || err.Error() != want {
			t.Fatalf("ResolveURI(%q) in %s: %v; want %q", tc.uri, tc.scope, err, want)
		}
	}
	if _, err := r.ResolveURI(ctx, "file:///etc/shadow", Scope{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := r.ResolveURI(ctx, "not a uri", Scope{}); !errors.Is(err, ErrInvalidURI) {
		t.Fatalf("garbage: %v", err)
	}
}

// TestResolveSkillTraversal sends every traversal form at a registry whose skill source would
// answer anything: none may reach it.
func TestResolveSkillTraversal(t *testing.T) {
	r := newTestRegistry(t)
	greedy := &greedySkills{testCap: testCap{name: "greedy"}}
	if err := r.Register(greedy, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	attacks := []string{
		"skill://pdf/../../etc/passwd",
		"skill://pdf/..",
		"skill://pdf/a/../../x",
		"skill://../etc/passwd",
		"skill://pdf/%2e%2e/%2e%2e/etc/passwd",
		"skill://pdf/%2E%2e/%2e%2E/etc/passwd",
		"skill://pdf/%252e%252e/%252e%252e/etc/passwd",
		"skill://%2e%2e/x",
		"skill://pdf/..%2f..%2fetc%2fpasswd",
		`skill://pdf/..\..\etc\passwd`,
		"skill://pdf/..%5c..%5cetc",
		"skill://pdf%5c..%5c..%5cetc",
		"skill://pdf/SKILL.md%00.png",
		"skill://pdf/SKILL.md\x00",
		"skill:///etc/passwd",
		"skill://pdf//etc/passwd",
		"skill://pdf/%2fetc%2fpasswd",
		"skill://pdf/C:/Windows/win.ini",
		"SKILL://pdf/../../x",
	}
	for _, uri := range attacks {
		_, err := r.ResolveURI(context.Background(), uri, Scope{})
		if !errors.Is(err, ErrPathTraversal) {
			t.Errorf("ResolveURI(%q): %v; want ErrPathTraversal", uri, err)
		}
	}
	if n := greedy.calls.Load(); n != 0 {
		t.Fatalf("a traversal attempt reached the capability (%d calls)", n)
	}
	// Harmless dots are allowed through.
	for _, ok := range []string{"skill://pdf/a/../SKILL.md", "skill://acme/billing/../x/SKILL.md", "skill://pdf/./SKILL.md"} {
		if _, err := r.ResolveURI(context.Background(), ok, Scope{}); err != nil {
			t.Errorf("ResolveURI(%q): %v", ok, err)
		}
	}
}

// TestResolveSkillFromDisk routes to a capability that reads files with OpenConfined, including
// the sibling "<root>-evil" and a symlink out of the root, which the registry cannot see
// lexically.
func TestResolveSkillFromDisk(t *testing.T) {
	base := t.TempDir()
	skills := filepath.Join(base, "skills")
	for dir, files := range map[string]map[string]string{
		filepath.Join(skills, "pdf"):      {"SKILL.md": "pdf skill"},
		filepath.Join(skills, "pdf-evil"): {"secret": "stolen"},
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink(filepath.Join(skills, "pdf-evil", "secret"), filepath.Join(skills, "pdf", "leak")); err != nil {
		t.Fatal(err)
	}
	r := newTestRegistry(t)
	if err := r.Register(&diskSkills{testCap: testCap{name: "disk"}, root: skills}, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if got := readText(t, r, "skill://pdf/SKILL.md", Scope{}); got != "pdf skill" {
		t.Fatalf("got %q", got)
	}
	for _, uri := range []string{"skill://pdf/leak", "skill://pdf/../pdf-evil/secret"} {
		_, err := r.ResolveURI(context.Background(), uri, Scope{})
		if !errors.Is(err, ErrPathTraversal) {
			t.Errorf("ResolveURI(%q): %v; want ErrPathTraversal", uri, err)
		}
	}
}

func TestResolveStopsWhenContextEnds(t *testing.T) {
	r := newTestRegistry(t)
	sk := newSkillCap(t, "skills", "skill://pdf/SKILL.md")
	if err := r.Register(sk, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.ResolveURI(ctx, "skill://pdf/SKILL.md", Scope{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if sk.exists.Load() != 0 {
		t.Fatal("a capability was asked after the context ended")
	}
}

// schemeCap learns its schemes at run time, as an MCP server does from its listing.
type schemeCap struct {
	resCap
	schemes []string
	err     error
}

var _ SchemeSource = (*schemeCap)(nil)

func (c *schemeCap) ResourceSchemes(context.Context) ([]string, error) { return c.schemes, c.err }

// TestResolveSchemeFromSchemeSource routes a scheme no registration names to the visible source
// that reports it, and keeps ErrUnknownScheme (with the failing source's error) otherwise.
func TestResolveSchemeFromSchemeSource(t *testing.T) {
	r := newTestRegistry(t)
	up := &schemeCap{resCap: *newResCap(t, "up", "test://static/hello"), schemes: []string{"test"}}
	down := &schemeCap{resCap: *newResCap(t, "down"), err: errors.New("server down")}
	hidden := &schemeCap{resCap: *newResCap(t, "hidden", "demo://x"), schemes: []string{"demo"}}
	for _, reg := range []struct {
		c     Capability
		level ScopeLevel
		slot  Scope
	}{{down, LevelPool, Scope{}}, {up, LevelPool, Scope{}}, {hidden, LevelSession, Scope{SessionID: "s1"}}} {
		if err := r.Register(reg.c, reg.level, reg.slot); err != nil {
			t.Fatal(err)
		}
	}
	if got := readText(t, r, "test://static/hello", Scope{}); got != "up:test://static/hello" {
		t.Fatalf("got %q", got)
	}
	ctx := context.Background()
	if _, err := r.ResolveURI(ctx, "test://static/missing", Scope{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing resource of a known scheme: %v", err)
	}
	// demo:// is served only in session s1: elsewhere it is an unknown scheme, not a leak.
	_, err := r.ResolveURI(ctx, "demo://x", Scope{SessionID: "s2"})
	if !errors.Is(err, ErrUnknownScheme) || !strings.Contains(err.Error(), `"demo"`) || !strings.Contains(err.Error(), "server down") {
		t.Fatalf("demo in s2: %v", err)
	}
	if got := readText(t, r, "demo://x", Scope{SessionID: "s1"}); got != "hidden:demo://x" {
		t.Fatalf("demo in s1: %q", got)
	}
}

// TestResolveSkillLocalNeverMixedWithRemote: when a local skill exists, a file it lacks is not
// taken from a remote skill of the same name.
func TestResolveSkillLocalNeverMixedWithRemote(t *testing.T) {
	r := newTestRegistry(t)
	remote := newMCPCap(t, "upstream", nil, "skill://pdf/SKILL.md", "skill://pdf/evil.md", "skill://other/SKILL.md")
	local := newSkillCap(t, "local", "skill://pdf/SKILL.md")
	for _, c := range []Capability{remote, local} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := r.ResolveURI(context.Background(), "skill://pdf/evil.md", Scope{})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `skill pdf is served by "local"; it has no evil.md`) {
		t.Fatalf("file missing from the local skill: %v", err)
	}
	if got := readText(t, r, "skill://other/SKILL.md", Scope{}); got != "upstream:skill://other/SKILL.md" {
		t.Fatalf("remote-only skill: %q", got)
	}
}

// fileCheckingDisk checks the file in SkillExists, as the skill manager does: a file leading out
// of its skill is an ErrPathTraversal error there, a missing one (false, nil).
type fileCheckingDisk struct{ diskSkills }

func (d *fileCheckingDisk) SkillExists(_ context.Context, uri string) (bool, error) {
	name, path, err := d.split(uri)
	if err != nil {
		return false, err
	}
	skillRoot, err := Confine(d.root, name)
	if err != nil {
		return false, nil
	}
	if _, err := Confine(skillRoot, path); err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// TestResolveSkillTraversalKeptWithRemote: a local skill's file symlinked out of it is
// ErrPathTraversal, whether or not a remote skill source is also visible (the "local skill has
// no such file" answer must not hide why).
func TestResolveSkillTraversalKeptWithRemote(t *testing.T) {
	base := t.TempDir()
	skills := filepath.Join(base, "skills")
	if err := os.MkdirAll(filepath.Join(skills, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, "pdf", "SKILL.md"), []byte("pdf skill"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "secret"), []byte("stolen"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "secret"), filepath.Join(skills, "pdf", "leak")); err != nil {
		t.Fatal(err)
	}
	for _, withRemote := range []bool{false, true} {
		r := newTestRegistry(t)
		local := &fileCheckingDisk{diskSkills{testCap: testCap{name: "local"}, root: skills}}
		if err := r.Register(local, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
		if withRemote {
			remote := newMCPCap(t, "upstream", nil, "skill://other/SKILL.md")
			if err := r.Register(remote, LevelPool, Scope{}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := r.ResolveURI(context.Background(), "skill://pdf/leak", Scope{})
		if !errors.Is(err, ErrPathTraversal) {
			t.Errorf("with remote %v: ResolveURI(skill://pdf/leak) = %v; want ErrPathTraversal", withRemote, err)
		}
	}
}

// idleSchemeCap is a SchemeSource that has not learnt its schemes (an MCP server not connected
// yet): it reports none, and must not be asked for a resource.
type idleSchemeCap struct {
	schemeCap
	state  HealthState
	asked  atomic.Int32 // ResourceSchemes calls
	exists atomic.Int32 // ResourceExists calls
}

var _ HealthReporter = (*idleSchemeCap)(nil)

func (c *idleSchemeCap) Health() Health { return Health{State: c.state} }
func (c *idleSchemeCap) ResourceSchemes(ctx context.Context) ([]string, error) {
	c.asked.Add(1)
	return c.schemeCap.ResourceSchemes(ctx)
}
func (c *idleSchemeCap) ResourceExists(ctx context.Context, uri string) (bool, error) {
	c.exists.Add(1)
	return c.schemeCap.ResourceExists(ctx, uri)
}

// TestResolveUnknownSchemeListsKnown: a scheme no registration names and no SchemeSource
// reports is ErrUnknownScheme naming it, the schemes known so far, and the sources that do not
// know theirs yet (not connected), with the mcp://<server>/<uri> form that always reaches them.
// Those sources are asked only what they know (ResourceSchemes), never for the resource.
func TestResolveUnknownSchemeListsKnown(t *testing.T) {
	r := newTestRegistry(t)
	files := newResCap(t, "files", "file:///etc/motd")
	up := &schemeCap{resCap: *newResCap(t, "up", "test://static/hello"), schemes: []string{"test"}}
	idle := &idleSchemeCap{schemeCap: schemeCap{resCap: *newResCap(t, "idle", "demo://x")}, state: HealthIdle}
	empty := &idleSchemeCap{schemeCap: schemeCap{resCap: *newResCap(t, "empty")}, state: HealthOK}
	if err := r.Register(files, LevelPool, Scope{}, WithSchemes("file")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Capability{up, idle, empty} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := r.ResolveURI(context.Background(), "typo://x", Scope{})
	if !errors.Is(err, ErrUnknownScheme) {
		t.Fatalf("typo: %v", err)
	}
	for _, want := range []string{`"typo"`, "known schemes: file, mcp, skill, test", `not connected yet: "idle"`, "mcp://<server>/<uri>"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `"empty"`) {
		t.Errorf("a connected source serving no scheme is not \"not connected\": %v", err)
	}
	if idle.asked.Load() == 0 || idle.exists.Load() != 0 || empty.exists.Load() != 0 {
		t.Errorf("idle: %d ResourceSchemes, %d ResourceExists; empty: %d ResourceExists; want only ResourceSchemes",
			idle.asked.Load(), idle.exists.Load(), empty.exists.Load())
	}
	// A source that knows its schemes is routed to as before.
	if got := readText(t, r, "test://static/hello", Scope{}); got != "up:test://static/hello" {
		t.Fatalf("got %q", got)
	}
}
