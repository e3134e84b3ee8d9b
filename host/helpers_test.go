package host

import (
	"context"
	"errors"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/skill"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func skillDecl(command string) skill.ServerDecl {
	return skill.ServerDecl{Name: "tool", Server: decl.Server{Type: "stdio", Command: command}, Source: "SKILL.md", Line: 4}
}

// recordedChild reports whether c is recorded in the registry as a child of its owner (a
// session's skill servers), without changing the graph: the reverse edge c → owner is refused as
// a cycle exactly when the edge owner → c exists (and refused as an unknown parent when c is not
// in the graph at all).
func (h *Host) recordedChild(c ext.Capability) bool {
	k, ok := c.(*skillChild)
	if !ok || k.parent == nil {
		return false
	}
	return errors.Is(h.Registry.AddChild(c, k.parent), ext.ErrCircularComposition)
}

// openSkills opens session sid and returns its skill servers; the session is closed when the
// test ends.
func openSkills(t *testing.T, h *Host, sid string) *sessionSkills {
	t.Helper()
	ctx := context.Background()
	if _, err := h.OpenSession(ctx, sid); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.CloseSession(ctx, sid) })
	return sessionSkillsOf(t, h, sid)
}

// sessionSkillsOf returns the skill servers registered for session sid.
func sessionSkillsOf(t *testing.T, h *Host, sid string) *sessionSkills {
	t.Helper()
	for _, r := range h.Registry.Registrations(ext.Scope{SessionID: sid}) {
		if s, ok := r.Capability.(*sessionSkills); ok && r.Level == ext.LevelSession {
			return s
		}
	}
	t.Fatalf("session %s has no skill servers", sid)
	return nil
}

// buildHost builds a host from config data (named path, which places relative paths) or, with
// data empty, from the file at path; the host is closed when the test ends.
func buildHost(t *testing.T, path, data string, opts Options) *Host {
	t.Helper()
	var cfg *config.Config
	var err error
	if data == "" {
		cfg, err = config.Load(path)
	} else {
		cfg, err = config.Parse(path, []byte(data))
	}
	if err != nil {
		t.Fatal(err)
	}
	h, err := Build(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}
