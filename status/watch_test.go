package status_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/mcpcap"
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
	parse := parser(t, path)
	ctx := context.Background()
	h, err := host.Build(ctx, parse("agents:\n  a: {}\n"), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	got := make(chan status.Transition, 16)
	// hold, when set, makes Report wait on its channel after telling got that its server
	// degraded (that only: a recovery told before hold was set may still be returning).
	type holdOn struct {
		server string
		until  chan struct{}
	}
	var hold atomic.Pointer[holdOn]
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		status.Watch(wctx, h, status.WatchOptions{
			Agents: func(st *host.State) []string { return st.Config.Agents.Names() },
			Report: func(tr status.Transition) {
				got <- tr
				if h := hold.Load(); h != nil && h.server == tr.Server && !tr.Recovered {
					<-h.until
				}
			},
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

	// The watcher is held in its report of agents.c.y's failure while c is removed and added
	// again: it still sees that c.y was removed in between, though it never read that state.
	held := make(chan struct{})
	hold.Store(&holdOn{server: "agents.c.y", until: held})
	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + failing + "\n")
	listY("c")
	want(status.Transition{Server: "agents.c.y"})
	reload("agents:\n  a: {}\n")
	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + running + "\n")
	listY("c")
	close(held)
	reload("agents:\n  a: {}\n  c:\n    mcp_servers:\n      y: " + running + "\n  d:\n    mcp_servers:\n      y: " + failing + "\n")
	listY("d")
	want(status.Transition{Server: "agents.d.y"}) // and no recovery of agents.c.y before it
}

// hangingListServer writes an MCP server (sh) that answers initialize and never answers
// tools/list, and returns its path.
func hangingListServer(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hang.sh")
	script := `#!/bin/sh
while IFS= read -r line; do
  case "$line" in
  *'"method":"initialize"'*)
    id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hang","version":"1"}}}\n' "$id" ;;
  esac
done
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A server whose try never ends (it starts, then never answers tools/list) holds up no
// other server's retry: f is tried again meanwhile and, once it can start, said recovered.
func TestWatchRetriesPastAHungServer(t *testing.T) {
	fault := testserver.Build(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "f.mark")
	f := filepath.Join(dir, "f.sh")
	if err := os.WriteFile(f, []byte("#!/bin/sh\n[ -f "+mark+" ] || { echo 'f: cannot find its data' >&2; exit 3; }\nexec "+fault+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agentpool.yaml")
	parse := parser(t, path)
	servers := "mcp_servers:\n  f: {command: " + f + ", retry: {attempts: 1, backoff: 10ms}}\n"
	ctx := context.Background()
	h, err := host.Build(ctx, parse(servers+"  g: {command: sh, args: [-c, \"exit 3\"], retry: {attempts: 1, backoff: 10ms}}\n"), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	got := make(chan status.Transition, 16)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		status.Watch(wctx, h, status.WatchOptions{Report: func(tr status.Transition) { got <- tr }})
	}()
	defer func() { stop(); <-done }()
	status.Connect(ctx, h.Current().Servers)
	seen := map[status.Transition]bool{}
	wait := func(server string, recovered bool) {
		t.Helper()
		deadline := time.After(time.Minute)
		for {
			for tr := range seen {
				if tr.Server == server && tr.Recovered == recovered {
					return
				}
			}
			select {
			case tr := <-got:
				seen[tr] = true
			case <-deadline:
				t.Fatalf("no transition of %s (recovered: %v) in a minute", server, recovered)
			}
		}
	}
	wait("f", false)
	wait("g", false)
	// g's new instance, a degraded server's successor, is tried at once: its try hangs.
	if _, err := h.Reload(ctx, parse(servers+"  g: {command: "+hangingListServer(t)+", startup_timeout: 2s, timeout: 2s}\n")); err != nil {
		t.Fatal(err)
	}
	server := func(name string) *mcpcap.Cap {
		for _, c := range h.Current().Servers {
			if c.Name() == name {
				return c
			}
		}
		t.Fatalf("no server %s", name)
		return nil
	}
	testwait.Within(t, time.Minute, "g's new instance started, its listing unanswered", func() bool {
		return server("g").Status().State == mcpcap.StateConnected
	})
	hung := time.Now()
	testwait.Within(t, time.Minute, "f tried again while g's listing hangs", func() bool {
		return server("f").Status().NextAttempt.After(hung)
	})
	if err := os.WriteFile(mark, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wait("f", true)
}

// Watch keeps no state it has moved past: a State leads to every one published after it
// (host.State.Next), so one held for as long as Watch runs would keep every state of every
// reload since, with their capabilities, alive until it returns.
func TestWatchLetsReplacedStatesGo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	parse := parser(t, path)
	ctx := context.Background()
	h, err := host.Build(ctx, parse("agents:\n  a: {}\n"), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	var readings atomic.Int64 // the states Watch has read and subscribed for
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		status.Watch(wctx, h, status.WatchOptions{
			Agents: func(st *host.State) []string {
				readings.Add(1)
				return st.Config.Agents.Names()
			},
			Report: func(status.Transition) {},
		})
	}()
	defer func() { stop(); <-done }()
	testwait.For(t, "Watch to read the first state", func() bool { return readings.Load() > 0 })
	if _, err := h.Reload(ctx, parse("agents:\n  b: {}\n")); err != nil {
		t.Fatal(err)
	}
	replaced := weak.Make(h.Current())
	if _, err := h.Reload(ctx, parse("agents:\n  c: {}\n")); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "the state of the first reload, replaced by the second, to be collected", func() bool {
		runtime.GC()
		return replaced.Value() == nil
	})
}

// parser returns a function that parses a config as the file at path, failing t on an error.
func parser(t *testing.T, path string) func(data string) *config.Config {
	return func(data string) *config.Config {
		t.Helper()
		cfg, err := config.Parse(path, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
}
