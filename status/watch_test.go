package status_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/status"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Watch follows reloads: an agent a reload adds has its server watched (nothing in the pool
// changes to wake it), the reload's new instance of a degraded server that connects is its
// recovery, and a degraded server whose agent a reload removes is forgotten: when the agent
// comes back with a server of that name that runs, nothing is said.
func TestWatchFollowsReloads(t *testing.T) {
	fault := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	parse := func(data string) *config.Config {
		t.Helper()
		cfg, err := config.Parse(path, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	ctx := context.Background()
	h, err := host.Build(ctx, parse("agents:\n  a: {}\n"), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	got := make(chan status.Transition, 16)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		status.Watch(wctx, h, status.WatchOptions{
			Agents: func(st *host.State) []string { return st.Config.Agents.Names() },
			Report: func(tr status.Transition) { got <- tr },
		})
	}()
	defer func() { stop(); <-done }()
	failing := "{command: sh, args: [-c, \"echo y: cannot find its data >&2; exit 3\"], retry: {attempts: 1, backoff: 10ms}}"
	running := "{command: " + fault + "}"
	reload := func(data string) {
		t.Helper()
		if _, err := h.Reload(ctx, parse(data)); err != nil {
			t.Fatal(err)
		}
	}
	// listY lists the tools of agent's server y, which connects it or degrades it.
	listY := func(agent string) {
		t.Helper()
		ys := h.Current().AgentServers(agent)
		if len(ys) != 1 {
			t.Fatalf("agent %s has %d servers, want y", agent, len(ys))
		}
		_, _ = ys[0].Tools(ctx)
	}
	want := func(w status.Transition) {
		t.Helper()
		select {
		case tr := <-got:
			if tr.Server != w.Server || tr.Recovered != w.Recovered || (tr.Err == "") != w.Recovered {
				t.Fatalf("transition %+v, want %+v", tr, w)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no transition in a minute, want %+v", w)
		}
	}

	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + failing + "\n")
	listY("c")
	want(status.Transition{Server: "agents.c.y"})
	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + running + "\n")
	listY("c")
	want(status.Transition{Server: "agents.c.y", Recovered: true})

	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + failing + "\n")
	listY("c")
	want(status.Transition{Server: "agents.c.y"})
	reload("agents:\n  a: {}\n")
	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + running + "\n")
	listY("c")
	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + running + "\n  d:\n    mcp_servers:\n      y: " + failing + "\n")
	listY("d")
	want(status.Transition{Server: "agents.d.y"}) // and no recovery of agents.c.y before it
}
