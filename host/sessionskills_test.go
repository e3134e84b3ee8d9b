package host

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/ext/exttest"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// skillCall calls a skill server's tool as session sid sees it, through its skill servers.
func skillCall(t *testing.T, h *Host, sid, tool, args string) string {
	t.Helper()
	res, err := sessionSkillsOf(t, h, sid).CallTool(context.Background(), &ext.ToolCall{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("session %s: %s = %+v, %v", sid, tool, res, err)
	}
	return res.Content[0].Text
}

// alive reports whether process pid exists (a reaped process does not).
func alive(t *testing.T, pidText string) bool {
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		t.Fatalf("pid %q: %v", pidText, err)
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// statefulSkillHost builds a host with one skill declaring a stateful server (the faultserver).
func statefulSkillHost(t *testing.T) *Host {
	bin := testserver.Build(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills/ops/SKILL.md"),
		"---\nname: ops\ndescription: Ops.\nmcp-servers:\n  srv:\n    command: "+bin+"\n---\nBody.\n")
	return buildHost(t, filepath.Join(dir, "agentpool.yaml"),
		"skills: {dirs: [skills], watch: false}\nmcp_servers:\n  private: {command: "+bin+", scope: session, prefix: \"\"}\n", Options{})
}

// The acceptance: two sessions that both see a skill with a stateful declared server
// get two processes; closing one ends its process (and its session-scoped server's) by the
// time CloseSession returns; a new session reusing the id starts fresh.
func TestSkillServersPerSession(t *testing.T) {
	ctx := context.Background()
	h := statefulSkillHost(t)
	for _, sid := range []string{"a", "b"} {
		if _, err := h.OpenSession(ctx, sid); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = h.CloseSession(ctx, "b") })
	skillCall(t, h, "a", "ops__state_set", `{"value":"alice"}`)
	skillCall(t, h, "b", "ops__state_set", `{"value":"bob"}`)
	if got := skillCall(t, h, "a", "ops__state_get", `{}`); got != "alice" {
		t.Fatalf("session a reads %q, want its own state", got)
	}
	pidA, pidB := skillCall(t, h, "a", "ops__pid", `{}`), skillCall(t, h, "b", "ops__pid", `{}`)
	if pidA == pidB {
		t.Fatalf("both sessions share skill server process %s", pidA)
	}
	privateA := sessionCall(t, h, "a", "pid", `{}`)

	start := time.Now()
	if err := h.CloseSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	t.Logf("CloseSession took %v", time.Since(start))
	if alive(t, pidA) || alive(t, privateA) {
		t.Fatalf("session a's processes outlive CloseSession (skill server %s alive: %v, session server %s alive: %v)",
			pidA, alive(t, pidA), privateA, alive(t, privateA))
	}
	if got := skillCall(t, h, "b", "ops__state_get", `{}`); got != "bob" {
		t.Fatalf("session b reads %q after a closed, want its own state", got)
	}

	if _, err := h.OpenSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.CloseSession(ctx, "a") })
	if got := skillCall(t, h, "a", "ops__state_get", `{}`); got != "" {
		t.Fatalf("reopened session a reads %q, the closed session's state", got)
	}
	if pid := skillCall(t, h, "a", "ops__pid", `{}`); pid == pidA {
		t.Fatalf("reopened session a runs on the closed session's process %s", pid)
	}
}

// Closing the session scope through the registry alone also ends its processes at once, not
// after the pool's idle timeout (5 minutes here).
func TestCloseScopeEndsSessionProcesses(t *testing.T) {
	ctx := context.Background()
	h := statefulSkillHost(t)
	if _, err := h.OpenSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	pid := skillCall(t, h, "a", "ops__pid", `{}`)
	private := sessionCall(t, h, "a", "pid", `{}`)
	start := time.Now()
	if err := h.Registry.CloseScope(ctx, ext.Scope{SessionID: "a"}); err != nil {
		t.Fatal(err)
	}
	testwait.Within(t, 20*time.Second, "the session's processes to end after CloseScope", func() bool {
		return !alive(t, pid) && !alive(t, private)
	})
	t.Logf("processes ended %v after CloseScope was called", time.Since(start))
}

// Outside a session the pool-level skill manager lists only load_skill: the servers are the
// sessions'.
func TestSkillManagerBuildsNoServers(t *testing.T) {
	h := statefulSkillHost(t)
	tools, err := h.Current().Skills.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "load_skill" {
		t.Fatalf("skill manager tools = %v, want load_skill only", tools)
	}
	if st := h.Pool.Stats(); st.Clients+st.Starting != 0 {
		t.Fatalf("pool has %d clients, want none outside a session", st.Clients+st.Starting)
	}
}

// A session's skill servers keep the capability lifecycle contract; closing them ends their
// processes and forgets their composition edges.
func TestSessionSkillsConformance(t *testing.T) {
	exttest.TestCapability(t, func(t *testing.T) ext.Capability {
		h := statefulSkillHost(t)
		if _, err := h.OpenSession(context.Background(), "s1"); err != nil {
			t.Fatal(err)
		}
		return sessionSkillsOf(t, h, "s1")
	}, &exttest.Options{
		Tool: &ext.ToolCall{Name: "ops__echo", Arguments: json.RawMessage(`{"text":"x"}`)},
		Released: func(c ext.Capability) error {
			ss := c.(*sessionSkills)
			if n := len(ss.Children()); n != 0 {
				return errors.New("closed, but still lists its servers")
			}
			for _, s := range ss.pool.Stats().Servers {
				if s.Partition == ss.partition {
					return errors.New("closed, but its partition still holds a client")
				}
			}
			return nil
		},
	})
}
