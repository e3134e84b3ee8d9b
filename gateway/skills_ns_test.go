package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/skill"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSkillsListNamespaced: skills/list over a manager with a bare skill "a" and a plugin "a"
// holding skill "configure" (skill://a/configure/SKILL.md). Each entry lists only files read
// as its own: the bare a's file configure/notes.md would be skill://a/configure/notes.md,
// which names a:configure's notes.md (a warning says so), so it is not a file of a: listing it
// would give a's entry the digest of another skill's file. a:configure lists its own files.
func TestSkillsListNamespaced(t *testing.T) {
	base := t.TempDir()
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	user, plug := filepath.Join(base, "user"), filepath.Join(base, "plug")
	write(filepath.Join(user, "a", "SKILL.md"), "---\nname: a\ndescription: Bare a.\n---\nA\n")
	write(filepath.Join(user, "a", "configure", "notes.md"), "bare a's notes\n")
	write(filepath.Join(user, "a", "top.md"), "top\n")
	write(filepath.Join(plug, "configure", "SKILL.md"), "---\nname: configure\ndescription: Plugin a configures.\n---\nC\n")
	write(filepath.Join(plug, "configure", "notes.md"), "plugin notes\n")

	m, err := skill.NewManager(&skill.Options{Roots: []string{user},
		NamespacedRoots: []skill.NamespacedRoot{{Namespace: "a", Dir: plug}}})
	if err != nil {
		t.Fatal(err)
	}
	reg := ext.NewRegistry(nil)
	if err := reg.Register(m, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv.CloseClientConnections()
		_ = g.Close(ctx)
		srv.Close()
		_ = reg.Close(ctx)
	})
	ctx := context.Background()
	cs, err := sepClient(t).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := mcp.CallCustomMethod[*sepListParams, *sepListResult](ctx, cs, "skills/list", &sepListParams{})
	if err != nil {
		t.Fatalf("skills/list: %v", err)
	}
	digest := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	got := map[string]map[string]string{} // skill URI → file URI → digest
	for _, s := range list.Skills {
		var files []sepFile
		if err := json.Unmarshal(s.Resources, &files); err != nil {
			t.Fatalf("%s: resources %s: %v", s.URI, s.Resources, err)
		}
		got[s.URI] = map[string]string{}
		for _, f := range files {
			got[s.URI][f.URI] = f.Digest
		}
		if s.URI == "skill://a/configure/SKILL.md" && s.Frontmatter["name"] != "configure" {
			t.Errorf("a:configure frontmatter name %v, want configure (the last segment of its path)", s.Frontmatter["name"])
		}
	}
	a, c := got["skill://a/SKILL.md"], got["skill://a/configure/SKILL.md"]
	if a == nil || c == nil {
		t.Fatalf("skills/list = %v", got)
	}
	if d, ok := a["skill://a/configure/notes.md"]; ok {
		t.Errorf("bare a lists skill://a/configure/notes.md (digest %s; a:configure's is %s): a file of another skill", d, digest("plugin notes\n"))
	}
	if a["skill://a/top.md"] != digest("top\n") {
		t.Errorf("bare a's files %v lack top.md", a)
	}
	if c["skill://a/configure/notes.md"] != digest("plugin notes\n") {
		t.Errorf("a:configure's files %v", c)
	}
}
