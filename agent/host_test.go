package agent_test

// Integration tests of RFC-0051 sequence diagrams 5-9 and hot swap: a scripted model, real
// MCP server processes (the faultserver) over stdio, leased from a real connection pool by
// capabilities a real host built.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/mcpcap"
	"go.uber.org/goleak"
)

// fixture is a host over a private copy of the faultserver binary (so a test can remove it
// and make a restart fail) writing its events to a log.
type fixture struct {
	dir, bin, log string
	h             *host.Host
	mu            sync.Mutex
	seen          []int // pids learnt from results, checked like the log's
}

// track records the pid a tool result names, to check it is gone after the host.
func (f *fixture) track(t *testing.T, text string) int {
	t.Helper()
	pid, err := strconv.Atoi(text)
	if err != nil {
		t.Fatalf("pid %q: %v", text, err)
	}
	f.mu.Lock()
	f.seen = append(f.seen, pid)
	f.mu.Unlock()
	return pid
}

// newFixture builds a host from the config yaml, in which BIN and LOG stand for the binary
// and the log. The host is closed when the test ends, and every server process it started
// must be gone by then. prepare, when given, writes files before the host is built.
func newFixture(t *testing.T, yaml string, prepare ...func(*fixture)) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir()}
	f.bin = filepath.Join(f.dir, "bin", "faultserver")
	f.log = filepath.Join(f.dir, "server.log")
	copyFile(t, testserver.Build(t), f.bin)
	for _, p := range prepare {
		p(f)
	}
	yaml = strings.NewReplacer("BIN", f.bin, "LOG", f.log).Replace(yaml)
	cfg, err := config.Parse(filepath.Join(f.dir, "agentpool.yaml"), []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	f.h, err = host.Build(context.Background(), cfg, host.Options{}) // the config's skills.watch decides
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.h.Close(context.Background()); err != nil {
			t.Errorf("host close: %v", err)
		}
		f.mu.Lock()
		all := append(f.pids(t), f.seen...)
		f.mu.Unlock()
		for _, pid := range all {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("server process %d outlives the host", pid)
			}
		}
	})
	return f
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// lines returns the server log's lines.
func (f *fixture) lines() []string {
	b, err := os.ReadFile(f.log)
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// pids returns every pid named in the log.
func (f *fixture) pids(t *testing.T) []int {
	var out []int
	for _, l := range f.lines() {
		if i := strings.LastIndexByte(l, ' '); i >= 0 {
			if pid, err := strconv.Atoi(l[i+1:]); err == nil && !slices.Contains(out, pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// waitLog waits until the log holds n lines starting with prefix and returns their pids. It
// polls: the server writes the log, and nothing else tells the test.
func (f *fixture) waitLog(t *testing.T, prefix string, n int) []int {
	t.Helper()
	var pids []int
	testwait.For(t, fmt.Sprintf("%d %q lines in the server's log", n, prefix), func() bool {
		pids = pids[:0]
		for _, l := range f.lines() {
			if rest, ok := strings.CutPrefix(l, prefix+" "); ok {
				pid, _ := strconv.Atoi(rest)
				pids = append(pids, pid)
			}
		}
		return len(pids) >= n
	})
	return pids
}

func (f *fixture) count(prefix string) int {
	n := 0
	for _, l := range f.lines() {
		if strings.HasPrefix(l, prefix+" ") {
			n++
		}
	}
	return n
}

// session opens a session scope of the host, closed when the test ends.
func (f *fixture) session(t *testing.T, id string) {
	t.Helper()
	if _, err := f.h.OpenSession(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.h.CloseSession(context.Background(), id) })
}

func (f *fixture) agent(t *testing.T, m agent.Model, subs ...agent.SubagentSpec) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Options{Model: m, Registry: f.h.Registry, Scope: ext.Scope{SessionID: "s1", AgentName: "main"}, Subagents: subs})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// ownServer returns a SubagentSpec.Capabilities building an agent-scoped capability named
// name for the pool's server srv (the same config, so the same pooled process), its tools
// prefixed "<name>__"; the capability is stored in *out.
func (f *fixture) ownServer(name string, out **mcpcap.Cap) func(context.Context) ([]ext.Capability, error) {
	return func(context.Context) ([]ext.Capability, error) {
		cfg := f.h.Current().Servers[0].Config()
		cfg.Name = name
		prefix := name + "__"
		cfg.Prefix = &prefix
		c, err := mcpcap.New(cfg, mcpcap.WithPool(f.h.Pool, ""))
		if err != nil {
			return nil, err
		}
		*out = c
		return []ext.Capability{c}, nil
	}
}

// lastResult returns the text of the last tool result in a request's messages.
func lastResult(req *agent.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == agent.RoleTool {
			return req.Messages[i].Text()
		}
	}
	return ""
}

func lastMessage(req *agent.Request) agent.Message { return req.Messages[len(req.Messages)-1] }

func delegate(pairs ...string) func(*agent.Request) (*agent.Response, error) {
	var args []string
	for i := 0; i+1 < len(pairs); i += 2 {
		args = append(args, "delegate", fmt.Sprintf(`{"agent":%q,"prompt":%q}`, pairs[i], pairs[i+1]))
	}
	return call(args...)
}

// answerLast answers with the last tool result's text.
func answerLast(req *agent.Request) (*agent.Response, error) {
	return &agent.Response{Text: lastResult(req)}, nil
}

const poolServer = "mcp_servers:\n  srv: {command: BIN, args: [--log, LOG, --count-delay, 1h], retry: {attempts: 2, backoff: 10ms}}\n"

// Diagram 5: a subagent gets agent-scoped capabilities visible to it alone (in its session),
// inherits the pool's, and loses them when it ends; the pooled process they leased stays and
// is the one the parent then uses.
func TestSubagentSpawnAndInheritance(t *testing.T) {
	f := newFixture(t, poolServer)
	f.session(t, "s1")
	f.session(t, "s2")
	ctx := context.Background()
	var own *mcpcap.Cap
	sub := newScript(
		func(req *agent.Request) (*agent.Response, error) {
			tools := toolNames(req)
			if !tools["coder-srv__pid"] || !tools["srv__pid"] {
				t.Errorf("subagent tools = %v, want its own and the pool's", tools)
			}
			for _, s := range []ext.Scope{{SessionID: "s1", AgentName: "main"}, {SessionID: "s2", AgentName: "coder"}, {SessionID: "s1"}} {
				for _, c := range f.h.Registry.Visible(s) {
					if c.Name() == "coder-srv" {
						t.Errorf("%s sees the subagent's capability", s)
					}
				}
			}
			return call("coder-srv__pid", `{}`)(req)
		},
		answerLast)
	spec := agent.SubagentSpec{Name: "coder", Model: sub, Capabilities: f.ownServer("coder-srv", &own)}
	parent := newScript(
		delegate("coder", "tell me your server's pid"),
		func(req *agent.Request) (*agent.Response, error) {
			if toolNames(req)["coder-srv__pid"] {
				t.Error("the parent is offered the subagent's tool")
			}
			return call("srv__pid", `{}`)(req)
		},
		answerLast)
	a := f.agent(t, parent, spec)
	res, err := a.Run(ctx, &agent.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	subPid, parentPid := res.Messages[2].Text(), res.Messages[4].Text()
	f.track(t, subPid)
	if subPid != parentPid || res.Messages[2].IsError {
		t.Errorf("subagent's server pid %q, parent's %q: want the same process", subPid, parentPid)
	}
	if st := own.Health().State; st != ext.HealthClosed {
		t.Errorf("subagent capability state = %s, want closed", st)
	}
	for _, c := range f.h.Registry.Visible(ext.Scope{SessionID: "s1", AgentName: "coder"}) {
		if c.Name() == "coder-srv" {
			t.Error("subagent capability still registered")
		}
	}
	if n := f.h.Pool.Stats().Processes; n != 1 {
		t.Errorf("pool processes = %d, want 1", n)
	}
}

// Diagram 6: the server is killed during a subagent's calls. A read-only call is retried on
// a new process and the subagent never knows; a non-idempotent one comes back to the model as
// a tool error, executed once; the server then stays dead (its binary is gone) and the next
// step's toolset leaves it out. The parent's run goes on.
func TestServerKilledDuringSubagentCall(t *testing.T) {
	f := newFixture(t, poolServer)
	f.session(t, "s1")
	gate := filepath.Join(f.dir, "gate")
	var wg sync.WaitGroup
	defer wg.Wait()
	sub := newScript(
		func(req *agent.Request) (*agent.Response, error) {
			wg.Go(func() {
				pid := f.waitLog(t, "gate", 1)[0]
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
					t.Error(err)
				}
				if err := os.WriteFile(gate, nil, 0o644); err != nil {
					t.Error(err)
				}
			})
			return call("srv__gate", fmt.Sprintf(`{"path":%q,"key":"k"}`, gate))(req)
		},
		func(req *agent.Request) (*agent.Response, error) {
			if m := lastMessage(req); m.IsError || m.Text() != "gate-k" {
				t.Errorf("read-only call after the crash = %+v, want gate-k recovered", m)
			}
			wg.Go(func() {
				pids := f.waitLog(t, "count", 1)
				if err := os.Remove(f.bin); err != nil { // no restart from now on
					t.Error(err)
				}
				if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
					t.Error(err)
				}
			})
			return call("srv__count", `{}`)(req)
		},
		func(req *agent.Request) (*agent.Response, error) {
			if m := lastMessage(req); !m.IsError || !strings.Contains(m.Text(), "srv__count") {
				t.Errorf("non-idempotent call cut off = %+v, want a tool error", m)
			}
			for n := range toolNames(req) {
				if strings.HasPrefix(n, "srv__") {
					t.Errorf("the dead server's tool %s is still offered", n)
				}
			}
			return &agent.Response{Text: "srv is gone"}, nil
		})
	parent := newScript(delegate("worker", "do it"), answerLast)
	a := f.agent(t, parent, agent.SubagentSpec{Name: "worker", Model: sub})
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "go"})
	if err != nil || res.Text != "srv is gone" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	wg.Wait()
	if n := f.count("count"); n != 1 {
		t.Errorf("count executed %d times, want once", n)
	}
	if g := f.waitLog(t, "gate", 2); g[0] == g[1] {
		t.Errorf("gate ran twice in process %d: want a new process for the retry", g[0])
	}
	if s := f.h.Current().Servers[0].Health().State; s != ext.HealthDegraded {
		t.Errorf("srv state = %s, want degraded", s)
	}
}

// writeSkill writes skills/<name>/SKILL.md under the fixture's folder.
func (f *fixture) writeSkill(t *testing.T, name, frontmatter, body string) {
	t.Helper()
	p := filepath.Join(f.dir, "skills", name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: "+name+"\n"+frontmatter+"---\n"+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Diagram 7: a skill's own MCP server fails for good during a subagent's run. The subagent
// loses that server's tools only: the skill's instructions (catalogue and body) stay, its
// files stay readable, and the run goes on.
func TestSkillServerFailureKeepsSkill(t *testing.T) {
	f := newFixture(t, "skills: {dirs: [skills], watch: false}\n", func(f *fixture) {
		f.writeSkill(t, "review", "description: Reviews code carefully.\nmcp-servers:\n  gh:\n    command: "+f.bin+"\n    args: [--log, "+f.log+"]\n    retry: {attempts: 1, backoff: 10ms}\n", "REVIEW BODY: read skill://review/checklist.md")
		if err := os.WriteFile(filepath.Join(f.dir, "skills", "review", "checklist.md"), []byte("CHECKLIST"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	f.session(t, "s1")
	instructionsIntact := func(req *agent.Request, when string) {
		if !strings.Contains(req.Instructions.Static, "Reviews code carefully.") || !strings.Contains(req.Instructions.Dynamic, "REVIEW BODY") {
			t.Errorf("%s: instructions = %+v, want the skill's catalogue entry and body", when, req.Instructions)
		}
	}
	sub := newScript(
		func(req *agent.Request) (*agent.Response, error) {
			instructionsIntact(req, "before")
			if !toolNames(req)["review__pid"] {
				t.Errorf("tools = %v, want the skill server's", toolNames(req))
			}
			return call("review__pid", `{}`)(req)
		},
		func(req *agent.Request) (*agent.Response, error) {
			pid := f.track(t, lastResult(req))
			if err := os.Remove(f.bin); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			return call("review__count", `{}`)(req)
		},
		func(req *agent.Request) (*agent.Response, error) {
			if m := lastMessage(req); !m.IsError {
				t.Errorf("call to the dead skill server = %+v, want a tool error", m)
			}
			instructionsIntact(req, "after")
			for n := range toolNames(req) {
				if strings.HasPrefix(n, "review__") {
					t.Errorf("the dead skill server's tool %s is still offered", n)
				}
			}
			return call("read_resource", `{"uri":"skill://review/checklist.md"}`)(req)
		},
		func(req *agent.Request) (*agent.Response, error) {
			if m := lastMessage(req); m.IsError || m.Text() != "CHECKLIST" {
				t.Errorf("skill file read = %+v", m)
			}
			return &agent.Response{Text: "reviewed without gh"}, nil
		})
	parent := newScript(delegate("reviewer", "use the review skill"), answerLast)
	a := f.agent(t, parent, agent.SubagentSpec{Name: "reviewer", Model: sub})
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "go"})
	if err != nil || res.Text != "reviewed without gh" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
}

// Diagram 8: the parent's context is cancelled while its subagent waits on a tool call. The
// upstream server sees the call cancelled (the go-sdk client sends notifications/cancelled:
// the handler's context ends while the process and its connection live on), the run returns
// StopInterrupted with no partial tool result, the subagent's scope is closed, and the next
// turn uses the same connection. Afterwards no goroutine and no process is left.
func TestParentInterruption(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last, after the host's close
	f := newFixture(t, poolServer)
	f.session(t, "s1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	sub := newScript(func(req *agent.Request) (*agent.Response, error) {
		wg.Go(func() {
			f.waitLog(t, "begin", 1)
			cancel() // the user interrupts
		})
		return call("coder-srv__sleep", `{"ms":3600000}`)(req)
	})
	parent := newScript(
		delegate("coder", "sleep"),
		func(req *agent.Request) (*agent.Response, error) {
			if len(req.Messages) != 2 { // turn 1's prompt, turn 2's prompt: nothing in between
				t.Errorf("turn 2 history = %+v", req.Messages)
			}
			return call("srv__pid", `{}`)(req)
		},
		answerLast)
	var own *mcpcap.Cap
	a := f.agent(t, parent, agent.SubagentSpec{Name: "coder", Model: sub, Capabilities: f.ownServer("coder-srv", &own)})
	res, err := a.Run(ctx, &agent.Input{Prompt: "delegate"})
	if !errors.Is(err, context.Canceled) || res.Stop != agent.StopInterrupted {
		t.Fatalf("Run = %+v, %v; want interrupted", res, err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != agent.RoleUser {
		t.Errorf("messages = %+v, want the prompt only (no partial result)", res.Messages)
	}
	for _, r := range f.h.Registry.Registrations(ext.Scope{SessionID: "s1", AgentName: "coder"}) {
		if r.Level >= ext.LevelAgent {
			t.Errorf("subagent scope still holds %s", r.Capability.Name())
		}
	}
	if st := own.Health().State; st != ext.HealthClosed {
		t.Errorf("subagent capability state = %s, want closed", st)
	}
	sleeper := f.waitLog(t, "cancelled", 1)[0]
	if n := f.count("done"); n != 0 {
		t.Errorf("the sleep ran to its end %d times", n)
	}
	// The next turn reuses the connection: the same process answers.
	res, err = a.Run(context.Background(), &agent.Input{Prompt: "pid?", History: res.Messages})
	if err != nil {
		t.Fatal(err)
	}
	if pid := f.track(t, res.Text); pid != sleeper {
		t.Errorf("next turn's server pid %d, want %d (the same connection)", pid, sleeper)
	}
	if n := f.h.Pool.Stats().Processes; n != 1 {
		t.Errorf("pool processes = %d, want 1", n)
	}
}

// Diagram 9: two subagents run at once and share one pooled server process: both their calls
// are in that process at the same time before either ends.
func TestConcurrentSubagentsShareServer(t *testing.T) {
	f := newFixture(t, poolServer)
	f.session(t, "s1")
	gate := filepath.Join(f.dir, "gate")
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		f.waitLog(t, "gate", 2) // both calls are waiting in the server
		if err := os.WriteFile(gate, nil, 0o644); err != nil {
			t.Error(err)
		}
	})
	sub := func(name string) *script {
		return newScript(
			call("srv__gate", fmt.Sprintf(`{"path":%q,"key":%q}`, gate, name)),
			func(req *agent.Request) (*agent.Response, error) {
				if got := lastResult(req); got != "gate-"+name {
					t.Errorf("%s: gate = %q", name, got)
				}
				return call("srv__pid", `{}`)(req)
			},
			answerLast)
	}
	parent := newScript(delegate("analyzer", "a", "reviewer", "b"), answer("both done"))
	a := f.agent(t, parent, agent.SubagentSpec{Name: "analyzer", Model: sub("analyzer")}, agent.SubagentSpec{Name: "reviewer", Model: sub("reviewer")})
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := res.Messages[2].Text(), res.Messages[3].Text()
	f.track(t, p1)
	gates := f.waitLog(t, "gate", 2)
	if p1 != p2 || strconv.Itoa(gates[0]) != p1 || gates[0] != gates[1] {
		t.Errorf("subagents' pids %s and %s, gate pids %v: want one process", p1, p2, gates)
	}
	if n := f.h.Pool.Stats().Processes; n != 1 {
		t.Errorf("pool processes = %d, want 1", n)
	}
}

// waitChange waits for an event of kind from capability name on ch.
func waitChange(t *testing.T, ch <-chan ext.ChangeEvent, name string, kind ext.ChangeKind) {
	t.Helper()
	for ev := range ch {
		if ev.Capability == name && ev.Kind == kind {
			return
		}
	}
	t.Fatalf("change stream ended before %s %s", name, kind)
}

// Hot swap within a run: the server adds a tool (and sends tools/list_changed) while the
// model works on step 1; step 2 is offered it and calls it.
func TestHotSwapUpstreamToolBetweenSteps(t *testing.T) {
	f := newFixture(t, poolServer)
	f.session(t, "s1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := f.h.Registry.Changes(ctx, ext.Scope{SessionID: "s1", AgentName: "main"})
	m := newScript(
		func(req *agent.Request) (*agent.Response, error) {
			if toolNames(req)["srv__fresh"] {
				t.Error("srv__fresh offered before it exists")
			}
			// Someone else (another client of the same process) adds a tool meanwhile.
			if _, err := f.h.Current().Servers[0].CallTool(ctx, &ext.ToolCall{Name: "srv__add_tool", Arguments: []byte(`{"name":"fresh"}`)}); err != nil {
				t.Fatal(err)
			}
			waitChange(t, changes, "srv", ext.ToolsChanged)
			return call("srv__echo", `{"text":"one"}`)(req)
		},
		func(req *agent.Request) (*agent.Response, error) {
			if !toolNames(req)["srv__fresh"] {
				t.Errorf("step 2 tools = %v, want srv__fresh", toolNames(req))
			}
			return call("srv__fresh", `{"text":"two"}`)(req)
		},
		answerLast)
	res, err := f.agent(t, m).Run(ctx, &agent.Input{Prompt: "go"})
	if err != nil || res.Text != "two" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
}

// Hot swap between turns: a skill edited after turn 1 changes turn 2's dynamic instructions
// (its body) while the static part stays byte-identical; an edit of its description changes
// the static catalogue of turn 3.
func TestHotSwapSkillEditBetweenTurns(t *testing.T) {
	f := newFixture(t, "skills: {dirs: [skills], watch: true, debounce: 20ms}\n", func(f *fixture) {
		f.writeSkill(t, "pdf", "description: Desc one.\n", "BODY ONE")
	})
	f.session(t, "s1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := f.h.Registry.Changes(ctx, ext.Scope{SessionID: "s1", AgentName: "main"})
	m := newScript(answer("1"), answer("2"), answer("3"))
	a := f.agent(t, m)
	turn := func() *agent.Request {
		t.Helper()
		if _, err := a.Run(ctx, &agent.Input{Prompt: "use the pdf skill"}); err != nil {
			t.Fatal(err)
		}
		r := m.requests()
		return r[len(r)-1]
	}
	r1 := turn()
	if !strings.Contains(r1.Instructions.Dynamic, "BODY ONE") || !strings.Contains(r1.Instructions.Static, "Desc one.") {
		t.Fatalf("turn 1 instructions = %+v", r1.Instructions)
	}
	f.writeSkill(t, "pdf", "description: Desc one.\n", "BODY TWO")
	waitChange(t, changes, "skills", ext.SkillsChanged)
	r2 := turn()
	if !strings.Contains(r2.Instructions.Dynamic, "BODY TWO") || strings.Contains(r2.Instructions.Dynamic, "BODY ONE") {
		t.Errorf("turn 2 dynamic = %q, want the new body", r2.Instructions.Dynamic)
	}
	if r2.Instructions.Static != r1.Instructions.Static {
		t.Errorf("static changed with the body only:\n%q\n%q", r1.Instructions.Static, r2.Instructions.Static)
	}
	f.writeSkill(t, "pdf", "description: Desc two.\n", "BODY TWO")
	waitChange(t, changes, "skills", ext.SkillsChanged)
	r3 := turn()
	if !strings.Contains(r3.Instructions.Static, "Desc two.") || strings.Contains(r3.Instructions.Static, "Desc one.") {
		t.Errorf("turn 3 static = %q, want the new description", r3.Instructions.Static)
	}
}
