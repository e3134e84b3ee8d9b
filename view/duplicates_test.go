package view_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	"github.com/google/go-cmp/cmp"
)

// The same capability value registered at pool and in a session (ext allows it) is one
// source in the session's view: its tools, commands, skills and instructions appear once and
// collide with nothing, and it is asked once.
func TestCapabilityInSeveralSlotsCountsOnce(t *testing.T) {
	r := newRegistry(t)
	f := newFake("srv", ext.OriginRemote, "srv__x")
	f.cmds = []ext.CommandEntry{{Name: "p", QualifiedName: "srv:p", Source: "mcp"}}
	f.skills = []ext.SkillEntry{{Name: "pdf", URI: "skill://pdf/SKILL.md"}}
	f.static = "use srv"
	register(t, r, f, ext.LevelPool, ext.Scope{})
	register(t, r, f, ext.LevelSession, ext.Scope{SessionID: "s"})
	v := compile(t, r, ext.Scope{SessionID: "s"})
	if diff := cmp.Diff([]string{"srv__x"}, toolNames(v)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(v.Commands) != 1 || len(v.Skills) != 1 {
		t.Errorf("commands = %+v, skills = %+v; want one each", v.Commands, v.Skills)
	}
	if len(v.Collisions) != 0 {
		t.Errorf("collisions = %+v; want none (one capability)", v.Collisions)
	}
	want := "<instructions from=\"mcp://srv\">\nuse srv\n</instructions>"
	if v.Instructions.Static != want {
		t.Errorf("static = %q, want %q", v.Instructions.Static, want)
	}
	if n := f.lists.Load(); n != 1 {
		t.Errorf("Tools asked %d times, want 1", n)
	}
	if v.Tools[0].Level != ext.LevelSession.String() {
		t.Errorf("level = %s, want the narrowest registration's", v.Tools[0].Level)
	}
	if _, err := v.CallTool(context.Background(), &ext.ToolCall{Name: "srv__x"}); err != nil {
		t.Error(err)
	}
}

// Two command sources of one kind (the user's and a project's command files) both offer
// /review, so both qualify it as "file:review". The loser must not be listed under a name
// that routes to the winner: every listed command reaches the capability it names, and a
// collision's ReachableAs reaches the loser.
func TestCommandLoserWithTakenQualifiedName(t *testing.T) {
	r := newRegistry(t)
	user := newFake("user-commands", ext.OriginLocal)
	user.cmds = []ext.CommandEntry{{Name: "review", QualifiedName: "file:review", Source: "file"}}
	proj := newFake("project-commands", ext.OriginProject)
	proj.cmds = []ext.CommandEntry{{Name: "review", QualifiedName: "file:review", Source: "file"}}
	squat := newFake("squat", ext.OriginLocal)
	squat.cmds = []ext.CommandEntry{{Name: "skill:pdf", Source: "file"}}
	skills := newFake("skills", ext.OriginLocal)
	skills.cmds = []ext.CommandEntry{{Name: "pdf", QualifiedName: "skill:pdf", Source: "skill"}}
	rskills := newFake("rskills", ext.OriginRemote)
	rskills.cmds = []ext.CommandEntry{{Name: "pdf", QualifiedName: "skill:pdf", Source: "skill"}}
	for _, c := range []*fakeCap{proj, user, squat, skills, rskills} {
		register(t, r, c, ext.LevelPool, ext.Scope{})
	}
	v := compile(t, r, ext.Scope{})
	ctx := context.Background()
	for _, c := range v.Commands {
		out, err := v.GetCommand(ctx, &ext.CommandRequest{Name: c.Name})
		if err != nil {
			t.Errorf("listed %q: %v", c.Name, err)
			continue
		}
		if want := c.Capability + "/"; len(out.Text()) < len(want) || out.Text()[:len(want)] != want {
			t.Errorf("listed %q from %s, but GetCommand reached %q", c.Name, c.Capability, out.Text())
		}
	}
	for _, col := range v.Collisions {
		if col.Loser.ReachableAs == "" {
			continue
		}
		c, ok := v.Command(col.Loser.ReachableAs)
		if !ok || c.Capability != col.Loser.Capability {
			t.Errorf("collision %s: %q reaches %+v", col, col.Loser.ReachableAs, c.Capability)
		}
	}
	if _, ok := v.Command("project-commands:file:review"); !ok {
		t.Errorf("the project's /review is not reachable; commands = %v", v.Commands)
	}
}

// A capability that lists one of its names twice offers one tool, not a phantom renamed copy
// colliding with itself.
func TestToolListedTwiceByOneCapability(t *testing.T) {
	r := newRegistry(t)
	f := newFake("srv", ext.OriginRemote, "srv__x", "srv__x")
	register(t, r, f, ext.LevelPool, ext.Scope{})
	v := compile(t, r, ext.Scope{})
	if diff := cmp.Diff([]string{"srv__x"}, toolNames(v)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(v.Collisions) != 0 {
		t.Errorf("collisions = %v", v.Collisions)
	}
}

// The same holds for commands and skills listed twice by one capability.
func TestCommandAndSkillListedTwiceByOneCapability(t *testing.T) {
	r := newRegistry(t)
	f := newFake("skills", ext.OriginLocal)
	f.cmds = []ext.CommandEntry{{Name: "pdf", QualifiedName: "skill:pdf", Source: "skill"}, {Name: "pdf", QualifiedName: "skill:pdf", Source: "skill"}}
	f.skills = []ext.SkillEntry{{Name: "pdf", URI: "skill://pdf/SKILL.md"}, {Name: "pdf", URI: "skill://pdf/SKILL.md"}}
	register(t, r, f, ext.LevelPool, ext.Scope{})
	v := compile(t, r, ext.Scope{})
	if len(v.Commands) != 1 || len(v.Skills) != 1 || len(v.Collisions) != 0 {
		t.Errorf("commands = %v\nskills = %v\ncollisions = %v", v.Commands, v.Skills, v.Collisions)
	}
}

// A local capability that is degraded and cannot list its tools is one problem, not two.
func TestDegradedLocalCapabilityOneProblem(t *testing.T) {
	r := newRegistry(t)
	f := newFake("local", ext.OriginLocal, "x")
	f.health = ext.HealthDegraded
	f.toolsErr = context.DeadlineExceeded
	register(t, r, f, ext.LevelPool, ext.Scope{})
	v := compile(t, r, ext.Scope{})
	want := []view.Problem{{Capability: "local", What: "capability", Err: "degraded: fake failure"}}
	if diff := cmp.Diff(want, v.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// blockingTools is a tool provider whose listing waits until released.
type blockingTools struct {
	*fakeCap
	entered chan struct{}
	release chan struct{}
}

func (b *blockingTools) Tools(ctx context.Context) ([]ext.ToolEntry, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	return b.fakeCap.Tools(ctx)
}

// A Get that finds another Get compiling its scope waits for it only as long as its own ctx
// lasts: a cancelled request is not held behind a slow compile (an unreachable server).
func TestCacheGetHonoursContextWhileWaiting(t *testing.T) {
	r := newRegistry(t)
	b := &blockingTools{fakeCap: newFake("slow", ext.OriginRemote, "slow__a"),
		entered: make(chan struct{}, 1), release: make(chan struct{})}
	register(t, r, b, ext.LevelPool, ext.Scope{})
	c := view.NewCache(r, nil)
	first := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), ext.Scope{})
		first <- err
	}()
	<-b.entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	second := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, ext.Scope{})
		second <- err
	}()
	waited := false
	select {
	case err := <-second:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Get with a cancelled ctx = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		waited = true
		t.Error("Get with a cancelled ctx still waits for another Get's compile")
	}
	close(b.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if waited {
		<-second
	}
}
