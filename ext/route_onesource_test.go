package ext

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// wantNotFoundFrom checks that uri is ErrNotFound and that the error names the source that won
// the skill and the file it lacks.
func wantNotFoundFrom(t *testing.T, r *Registry, uri string, scope Scope, skill, winner, file string) {
	t.Helper()
	_, err := r.ResolveURI(context.Background(), uri, scope)
	want := `skill ` + skill + ` is served by "` + winner + `"; it has no ` + file
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), want) {
		t.Fatalf("ResolveURI(%q) in %s: %v; want ErrNotFound saying %q", uri, scope, err, want)
	}
}

// TestResolveSkillOneRemoteSource: two MCP servers both have pdf; the first registered wins
// it, and the other's scripts/run.sh is not served as part of it.
func TestResolveSkillOneRemoteSource(t *testing.T) {
	r := newTestRegistry(t)
	first := newMCPCap(t, "first", nil, "skill://pdf/SKILL.md")
	second := newMCPCap(t, "second", nil, "skill://pdf/SKILL.md", "skill://pdf/scripts/run.sh", "skill://docx/SKILL.md")
	for _, c := range []Capability{first, second} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := readText(t, r, "skill://pdf/SKILL.md", Scope{}); got != "first:skill://pdf/SKILL.md" {
		t.Fatalf("SKILL.md: %q", got)
	}
	wantNotFoundFrom(t, r, "skill://pdf/scripts/run.sh", Scope{}, "pdf", "first", "scripts/run.sh")
	if n := second.skills.reads.Load(); n != 0 {
		t.Fatalf("the shadowed server was read %d times", n)
	}
	// A skill only the second server has is its own.
	if got := readText(t, r, "skill://docx/SKILL.md", Scope{}); got != "second:skill://docx/SKILL.md" {
		t.Fatalf("docx: %q", got)
	}
}

// TestResolveSkillNarrowestScopeWins: a session's local skill beats the pool's of the same
// name (as the view's Skills list says); its extra files are served, the pool one's are not.
func TestResolveSkillNarrowestScopeWins(t *testing.T) {
	r := newTestRegistry(t)
	pool := newSkillCap(t, "pool", "skill://pdf/SKILL.md", "skill://pdf/pool-only.md")
	sess := newSkillCap(t, "sess", "skill://pdf/SKILL.md", "skill://pdf/extra.md")
	if err := r.Register(pool, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(sess, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	s := Scope{SessionID: "s"}
	for uri, want := range map[string]string{
		"skill://pdf/SKILL.md": "sess:skill://pdf/SKILL.md",
		"skill://pdf/extra.md": "sess:skill://pdf/extra.md",
	} {
		if got := readText(t, r, uri, s); got != want {
			t.Fatalf("%s: %q, want %q", uri, got, want)
		}
	}
	wantNotFoundFrom(t, r, "skill://pdf/pool-only.md", s, "pdf", "sess", "pool-only.md")
	// Another session sees only the pool's skill, whole.
	if got := readText(t, r, "skill://pdf/pool-only.md", Scope{SessionID: "t"}); got != "pool:skill://pdf/pool-only.md" {
		t.Fatalf("other session: %q", got)
	}
	wantNotFoundFrom(t, r, "skill://pdf/extra.md", Scope{SessionID: "t"}, "pdf", "pool", "extra.md")
}

// TestResolveSkillOriginBeforeLevel: origin decides before scope level (a project's skill given
// to a turn does not beat the user's own at pool), and a capability registered in several
// visible slots is placed as its narrowest registration.
func TestResolveSkillOriginBeforeLevel(t *testing.T) {
	r := newTestRegistry(t)
	mine := newSkillCap(t, "mine", "skill://pdf/SKILL.md")
	proj := newSkillCap(t, "proj", "skill://pdf/SKILL.md", "skill://pdf/x.md")
	both := newSkillCap(t, "both", "skill://docx/SKILL.md")
	sess := newSkillCap(t, "sess", "skill://docx/SKILL.md", "skill://docx/x.md")
	turn := Scope{SessionID: "s", AgentName: "a", TurnID: "t"}
	for _, reg := range []struct {
		c     Capability
		level ScopeLevel
		slot  Scope
		opts  []RegisterOption
	}{
		{mine, LevelPool, Scope{}, nil},
		{proj, LevelTurn, turn, []RegisterOption{WithOrigin(Origin{Kind: OriginProject})}},
		{both, LevelPool, Scope{}, nil},
		{sess, LevelSession, Scope{SessionID: "s"}, nil},
		{both, LevelAgent, Scope{AgentName: "a"}, nil},
	} {
		if err := r.Register(reg.c, reg.level, reg.slot, reg.opts...); err != nil {
			t.Fatal(err)
		}
	}
	wantNotFoundFrom(t, r, "skill://pdf/x.md", turn, "pdf", "mine", "x.md")
	// both is registered at pool and for agent a: for a, its agent registration beats the
	// session's skill; for another agent, the session's wins.
	wantNotFoundFrom(t, r, "skill://docx/x.md", turn, "docx", "both", "x.md")
	if got := readText(t, r, "skill://docx/x.md", Scope{SessionID: "s", AgentName: "b"}); got != "sess:skill://docx/x.md" {
		t.Fatalf("agent b: %q", got)
	}
}

// TestResolveSkillSchemeFallbackNeverFillsIn: a ResourceSource registered for skill:// is a
// fallback for skills no SkillResource has, never for a file a skill lacks.
func TestResolveSkillSchemeFallbackNeverFillsIn(t *testing.T) {
	r := newTestRegistry(t)
	local := newSkillCap(t, "local", "skill://pdf/SKILL.md")
	fallback := newResCap(t, "fallback", "skill://pdf/SKILL.md", "skill://pdf/run.sh", "skill://docx/SKILL.md", "skill://docx/run.sh")
	if err := r.Register(local, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(fallback, LevelPool, Scope{}, WithSchemes("skill")); err != nil {
		t.Fatal(err)
	}
	wantNotFoundFrom(t, r, "skill://pdf/run.sh", Scope{}, "pdf", "local", "run.sh")
	if got := readText(t, r, "skill://docx/run.sh", Scope{}); got != "fallback:skill://docx/run.sh" {
		t.Fatalf("fallback skill: %q", got)
	}
}

// TestResolveSkillNestedPaths: a skill path of several segments is owned by the source that
// has its SKILL.md, and a skill another source nests inside a skill it does not own cannot
// take over that skill's files.
func TestResolveSkillNestedPaths(t *testing.T) {
	r := newTestRegistry(t)
	local := newSkillCap(t, "local", "skill://pdf/SKILL.md", "skill://pdf/scripts/run.sh")
	a := newMCPCap(t, "a", nil, "skill://acme/billing/refunds/SKILL.md",
		"skill://pdf/scripts/SKILL.md", "skill://pdf/scripts/evil.sh") // nests into the local pdf
	b := newMCPCap(t, "b", nil, "skill://acme/billing/refunds/SKILL.md", "skill://acme/billing/refunds/GUIDE.md",
		"skill://acme/billing/invoices/SKILL.md", "skill://acme/billing/invoices/GUIDE.md")
	for _, c := range []Capability{local, a, b} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	wantNotFoundFrom(t, r, "skill://acme/billing/refunds/GUIDE.md", Scope{}, "acme/billing/refunds", "a", "GUIDE.md")
	if got := readText(t, r, "skill://acme/billing/invoices/GUIDE.md", Scope{}); got != "b:skill://acme/billing/invoices/GUIDE.md" {
		t.Fatalf("invoices: %q", got)
	}
	if got := readText(t, r, "skill://pdf/scripts/run.sh", Scope{}); got != "local:skill://pdf/scripts/run.sh" {
		t.Fatalf("local pdf: %q", got)
	}
	wantNotFoundFrom(t, r, "skill://pdf/scripts/evil.sh", Scope{}, "pdf", "local", "scripts/evil.sh")
	wantNotFoundFrom(t, r, "skill://pdf/scripts/SKILL.md", Scope{}, "pdf", "local", "scripts/SKILL.md")
	if n := a.skills.reads.Load(); n != 0 {
		t.Fatalf("the nesting server was read %d times", n)
	}
	// Dot segments and escapes are resolved before the skill path is found (the owner is then
	// asked for the URI as given, which this fake does not resolve).
	wantNotFoundFrom(t, r, "skill://acme/billing/x/../invoices/GUIDE.md", Scope{}, "acme/billing/invoices", "b", "GUIDE.md")
	wantNotFoundFrom(t, r, "skill://acme/billing/%69nvoices/./a%2Fb", Scope{}, "acme/billing/invoices", "b", "a/b")
}
