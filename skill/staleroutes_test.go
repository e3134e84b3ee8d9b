package skill

import (
	"context"
	"errors"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// blockingCap lists its tools only once release is closed, so a test can rescan while a listing
// is in flight.
type blockingCap struct {
	fakeCap
	listing chan struct{} // closed when Tools is first entered
	release chan struct{}
}

func (b *blockingCap) Tools(ctx context.Context) ([]ext.ToolEntry, error) {
	select {
	case <-b.listing:
	default:
		close(b.listing)
	}
	<-b.release
	return b.fakeCap.Tools(ctx)
}

// TestNoStaleRoutesAfterReload: a tool listing that read the skills before a rescan narrowed a
// skill's allowed-tools must not leave routes behind that let a call reach a tool the skill now
// excludes.
func TestNoStaleRoutesAfterReload(t *testing.T) {
	root := t.TempDir()
	decl := "mcp-servers:\n  s:\n    command: server\n"
	write(t, root, "kid/SKILL.md", skillMD("name: kid\ndescription: d\n"+decl, "Body"))
	bc := &blockingCap{fakeCap: fakeCap{name: "s", tools: []string{"echo", "secret"}},
		listing: make(chan struct{}), release: make(chan struct{})}
	m := newTestManager(t, &Options{Roots: []string{root}})
	srv := m.NewServers("skill-servers", func(context.Context, string, ServerDecl) (ext.Capability, error) {
		return bc, nil
	})
	t.Cleanup(func() { _ = srv.Close(context.Background()) })

	done := make(chan []ext.ToolEntry)
	go func() {
		tools, _ := srv.Tools(context.Background())
		done <- tools
	}()
	<-bc.listing
	// allowed-tools narrowed to echo; the declarations are the same, so the child is kept.
	write(t, root, "kid/SKILL.md", skillMD("name: kid\ndescription: d\nallowed-tools: echo\n"+decl+"# longer\n", "Body"))
	if err := m.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(bc.release)
	<-done

	_, err := srv.CallTool(context.Background(), &ext.ToolCall{Name: "kid__secret"})
	if !errors.Is(err, ext.ErrNotFound) {
		t.Fatalf("call of a tool allowed-tools now excludes: err %v, want ErrNotFound", err)
	}
}
