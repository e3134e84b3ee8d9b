package trust

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
)

func testDecl(cmd string) Decl {
	return Decl{Where: "/p/.agents/skills/x/SKILL.md", Name: "x.s", Server: decl.Server{Type: "stdio", Command: cmd,
		Args: []string{"-c", "touch m"}, Env: map[string]string{"K": "secret-value"}}}
}

// Trust, then Check: trusted; a changed command or a new server is Changed and named; a
// removed one keeps the trust; Untrust forgets.
func TestStoreLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "agentpool", "trust.json")
	s := NewStore(path)
	a, b := testDecl("sh"), testDecl("node")
	b.Name = "x.t"
	if v, err := s.Check("/p", []Decl{a}); err != nil || v.Status != Untrusted {
		t.Fatalf("before trust: %v, %v; want untrusted", v.Status, err)
	}
	if err := s.Trust("/p", Digests([]Decl{a, b}), time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		decls []Decl
		want  Status
		fresh int
	}{
		{"same", []Decl{b, a}, Trusted, 0},
		{"one removed", []Decl{a}, Trusted, 0},
		{"none", nil, Trusted, 0},
		{"command changed", []Decl{testDecl("bash"), b}, Changed, 1},
		{"env value changed", []Decl{func() Decl { d := a; d.Env = map[string]string{"K": "other"}; return d }()}, Changed, 1},
		{"moved", []Decl{func() Decl { d := a; d.Where = "/p/mcp.json"; return d }()}, Changed, 1},
	} {
		v, err := s.Check("/p", tc.decls)
		if err != nil || v.Status != tc.want || len(v.New) != tc.fresh {
			t.Errorf("%s: %v with %d new, %v; want %v with %d", tc.name, v.Status, len(v.New), err, tc.want, tc.fresh)
		}
	}
	if v, _ := s.Check("/other", nil); v.Status != Untrusted {
		t.Errorf("another project: %v, want untrusted", v.Status)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "secret-value") || strings.Contains(string(data), "touch m") {
		t.Errorf("the store holds declaration values:\n%s", data)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	if ok, err := s.Untrust("/p"); !ok || err != nil {
		t.Fatalf("untrust: %v, %v", ok, err)
	}
	if ok, err := s.Untrust("/p"); ok || err != nil {
		t.Fatalf("untrust again: %v, %v; want false, nil", ok, err)
	}
	if v, _ := s.Check("/p", []Decl{a}); v.Status != Untrusted {
		t.Errorf("after untrust: %v, want untrusted", v.Status)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".trust-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// A store file that does not parse is an error naming it, and trusts nothing.
func TestCorruptStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	for _, text := range []string{"{not json", `{"projects": {"/p": null}}`} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		s := NewStore(path)
		v, err := s.Check("/p", nil)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || v.Status != Untrusted {
			t.Errorf("%q: %v, %v; want untrusted and ErrCorrupt naming %s", text, v.Status, err, path)
		}
		if err := s.Trust("/p", nil, time.Now()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: Trust over a corrupt file: %v, want ErrCorrupt (never a silent reset)", text, err)
		}
	}
}

// DefaultPath follows XDG_CONFIG_HOME, and ~/.config without it.
func TestDefaultPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	if p, _ := DefaultPath(); p != "/x/cfg/agentpool/trust.json" {
		t.Errorf("with XDG_CONFIG_HOME: %s", p)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	if p, _ := DefaultPath(); p != filepath.Join(home, ".config/agentpool/trust.json") {
		t.Errorf("without XDG_CONFIG_HOME: %s", p)
	}
	t.Setenv("XDG_CONFIG_HOME", "rel/cfg")
	if p, _ := DefaultPath(); p != filepath.Join(home, ".config/agentpool/trust.json") {
		t.Errorf("with a relative XDG_CONFIG_HOME: %s, want it ignored", p)
	}
	t.Setenv("HOME", ".")
	if p, err := DefaultPath(); err == nil {
		t.Errorf("with HOME=. and a relative XDG_CONFIG_HOME: %s, want an error (a path in the working directory)", p)
	}
}

// RealPath resolves symlinks: a project reached through a link is the same project.
func TestRealPath(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	a, err1 := RealPath(dir)
	b, err2 := RealPath(link)
	if err1 != nil || err2 != nil || a != b {
		t.Errorf("RealPath: %q (%v) and %q (%v), want equal", a, err1, b, err2)
	}
}

// Trusting several projects at once (several agentpool processes, here several stores on one
// file) keeps every record: the read-modify-write is done under a lock, not last-rename-wins.
func TestConcurrentTrust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agentpool", "trust.json")
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- NewStore(path).Trust(fmt.Sprintf("/p%d", i), []string{"d"}, time.Now()) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s := NewStore(path)
	for i := range n {
		if r, err := s.Lookup(fmt.Sprintf("/p%d", i)); err != nil || r == nil {
			t.Errorf("project /p%d: record %v, %v; want it kept", i, r, err)
		}
	}
}

// env_passthrough is part of a declaration's digest (what the server is given), its order not.
func TestDigestEnvPassthrough(t *testing.T) {
	a, b, c := testDecl("sh"), testDecl("sh"), testDecl("sh")
	b.EnvPassthrough = []string{"B", "A"}
	c.EnvPassthrough = []string{"A", "B"}
	if a.Digest() == b.Digest() {
		t.Error("adding env_passthrough keeps the digest")
	}
	if b.Digest() != c.Digest() {
		t.Error("the order of env_passthrough changes the digest")
	}
	if b.EnvPassthrough[0] != "B" {
		t.Error("Digest reordered the caller's slice")
	}
}
