package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/ext/exttest"
)

// conformanceRoot writes two skills, one of them with an MCP server of its own, and returns
// the root.
func conformanceRoot(t *testing.T) string {
	root := t.TempDir()
	write(t, root, "alpha/SKILL.md", skillMD("name: alpha\ndescription: First skill.\nargument-hint: \"[what]\"\n", "Do $ARGUMENTS"))
	write(t, root, "alpha/references/ref.md", "# Reference\n")
	write(t, root, "kid/SKILL.md", skillMD("name: kid\ndescription: Has a server.\nmcp-servers:\n  helper:\n    command: helper-server\n", "Kid body"))
	return root
}

// childTracker builds fake child capabilities and checks that a closed Manager closed them all.
type childTracker struct {
	mu   sync.Mutex
	made []*fakeCap
}

func (ct *childTracker) factory(_ context.Context, _ string, d ServerDecl) (ext.Capability, error) {
	f := &fakeCap{name: d.Name, tools: []string{"echo"}}
	ct.mu.Lock()
	ct.made = append(ct.made, f)
	ct.mu.Unlock()
	return f, nil
}

func (ct *childTracker) released(ext.Capability) error {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	for _, f := range ct.made {
		if f.closes.Load() == 0 {
			return fmt.Errorf("child %q was not closed", f.name)
		}
	}
	return nil
}

func TestManagerConformance(t *testing.T) {
	t.Run("Static", func(t *testing.T) {
		root := conformanceRoot(t)
		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
			return newTestManager(t, &Options{Roots: []string{root}})
		}, &exttest.Options{
			Tool:     &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(`{"name":"alpha"}`)},
			Command:  &ext.CommandRequest{Name: "alpha", Args: []string{"x"}},
			SkillURI: "skill://alpha/references/ref.md",
		})
	})
	t.Run("WatchAndChildren", func(t *testing.T) {
		root := conformanceRoot(t)
		var ct *childTracker
		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
			ct = &childTracker{}
			return newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 10 * time.Millisecond, Children: ct.factory})
		}, &exttest.Options{
			Tool:     &ext.ToolCall{Name: ext.ToolName("kid", "echo")},
			Command:  &ext.CommandRequest{Name: "skill:kid"},
			SkillURI: "skill://kid/SKILL.md",
			Released: func(c ext.Capability) error { return ct.released(c) },
		})
	})
}

// blockingChild is a child whose Close takes until its context ends, as a server that will
// not stop does.
type blockingChild struct {
	fakeCap
	entered chan struct{}
}

func (b *blockingChild) Close(ctx context.Context) error {
	close(b.entered)
	<-ctx.Done()
	return ctx.Err()
}

// A Close that finds another Close at work returns when its own context ends, with that
// context's error: it does not wait for the first caller's context.
func TestManagerCloseWaitsOnlyForItsOwnContext(t *testing.T) {
	root := conformanceRoot(t)
	child := &blockingChild{fakeCap: fakeCap{name: "helper", tools: []string{"echo"}}, entered: make(chan struct{})}
	m := newTestManager(t, &Options{Roots: []string{root}, Children: func(context.Context, string, ServerDecl) (ext.Capability, error) {
		return child, nil
	}})
	if _, err := m.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	firstCtx, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	firstDone := make(chan error, 1)
	go func() { firstDone <- m.Close(firstCtx) }()
	<-child.entered

	secondCtx, cancelSecond := context.WithCancel(context.Background())
	cancelSecond()
	secondDone := make(chan error, 1)
	go func() { secondDone <- m.Close(secondCtx) }()
	select {
	case err := <-secondDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("second Close = %v, want an error wrapping context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("a Close with a cancelled context waited for the first Close")
		defer func() { <-secondDone }()
	}
	cancelFirst()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Errorf("first Close = %v, want the child's context error", err)
	}
}
