package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUnsubscribeAfterSkillManagerReplaced: a reload that replaces the skill manager a
// subscription was made through does not keep the client subscribed: unsubscribe succeeds,
// and a later edit of that skill sends no resources/updated for the URI, while the
// subscription the client kept still gets its updates.
func TestUnsubscribeAfterSkillManagerReplaced(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "greet", "Hello.")
	writeSkill(t, root, "other", "Other.")
	_, srv, h := serveHost(t, "skills:\n  debounce: 50ms\n", host.Options{SkillDirs: []string{root}}, nil)
	var mu sync.Mutex
	var updated []string
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			updated = append(updated, req.Params.URI)
			mu.Unlock()
		}})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	greet, other := "skill://greet/SKILL.md", "skill://other/SKILL.md"
	for _, uri := range []string{greet, other} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}

	next, err := config.Parse(filepath.Join(t.TempDir(), "agentpool.yaml"), []byte("skills:\n  debounce: 60ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(ctx, next); err != nil {
		t.Fatal(err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: greet}); err != nil {
		t.Errorf("unsubscribe %s after the skill manager was replaced: %v", greet, err)
	}

	edit := func(name, body string) {
		md := "---\nname: " + name + "\ndescription: The " + name + " skill for tests.\n---\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(updated)
	}
	// greet first, read back once the new manager has it, then other: greet's update, had it
	// been sent, arrives before other's on the session's one stream.
	edit("greet", "Hello again.")
	testwait.For(t, "the edit of greet read back", func() bool {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: greet})
		return err == nil && len(rr.Contents) == 1 && strings.HasSuffix(rr.Contents[0].Text, "Hello again.\n")
	})
	edit("other", "Other again.")
	testwait.For(t, "resources/updated for "+other, func() bool { return slices.Contains(got(), other) })
	if slices.Contains(got(), greet) {
		t.Errorf("resources/updated %q: the client unsubscribed from %s", got(), greet)
	}
}
