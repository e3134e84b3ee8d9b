package skill

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// TestNoChildrenForARemovedSkill: a tool listing that loaded the state just before a rescan
// removed a skill reaches forSkill after the rescan pruned that skill's children. It must not
// build children for the removed skill: nothing would close them before the next rescan.
func TestNoChildrenForARemovedSkill(t *testing.T) {
	root := t.TempDir()
	write(t, root, "kid/SKILL.md", skillMD("name: kid\ndescription: d\nmcp-servers:\n  s:\n    command: server\n", "Body"))
	var made atomic.Int32
	factory := func(context.Context, string, ServerDecl) (ext.Capability, error) {
		made.Add(1)
		return &fakeCap{name: "s"}, nil
	}
	m := newTestManager(t, &Options{Roots: []string{root}, Children: factory})
	stale := m.Skill("kid")
	if stale == nil {
		t.Fatal("skill not loaded")
	}
	if err := os.RemoveAll(filepath.Join(root, "kid")); err != nil {
		t.Fatal(err)
	}
	if err := m.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The listing goroutine resumes with the skill of its old snapshot.
	if kids := m.kids.forSkill(context.Background(), stale); len(kids) != 0 || made.Load() != 0 {
		t.Fatalf("built %d children (%d factory calls) for a removed skill", len(kids), made.Load())
	}
	if n := len(m.Children()); n != 0 {
		t.Fatalf("%d children kept for a removed skill", n)
	}
}
