package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newServersFixture serves a host with two upstreams over real HTTP: "shared", pool-scoped
// (every session sees the one process), and "own", session-scoped (one process per session).
// Each starts through sh and refuses to start while its file down (in the returned folder)
// exists, so a crash can be made to last.
func newServersFixture(t *testing.T) (url, dir string) {
	t.Helper()
	bin := testserver.Build(t)
	dir = t.TempDir()
	server := func(name, scope string) string {
		return "  " + name + ":\n    command: sh\n    args: [-c, 'test -e " + filepath.Join(dir, name+".down") + " && exit 1; exec " + bin + "']\n" +
			"    scope: " + scope + "\n    retry: {attempts: 1, backoff: 50ms}\n"
	}
	cfg, err := config.Parse(filepath.Join(dir, "agentpool.yaml"), []byte("skills:\n  debounce: 50ms\nmcp_servers:\n"+
		server("shared", "pool")+server("own", "session")))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Build(context.Background(), cfg, host.Options{ProjectDir: dir, HomeDir: dir, NoDefaultRoots: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: h.Registry, OpenSession: h.OpenSessionFunc(""), CloseSession: h.CloseSession})
	if err != nil {
		t.Fatal(err)
	}
	return newHTTPServer(t, g, h), dir
}

// toolNames lists a session's tools.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// settle waits past every debounce, so that a duplicate or misrouted notification would have
// arrived; it can only make a correct run pass later, never fail.
func settle() { time.Sleep(time.Second) } // absence over real time: nothing signals "no more"

// TestUpstreamChangesReachTheirSessions: an upstream's tools/list_changed, its crash into
// degraded and its recovery each reach exactly the sessions that see that server, once: a
// session-scoped server's only its own session, the pool-scoped server's both.
func TestUpstreamChangesReachTheirSessions(t *testing.T) {
	url, dir := newServersFixture(t)
	a, na := connectLogged(t, url)
	b, nb := connectLogged(t, url)
	has := func(cs *mcp.ClientSession, name string) func() bool {
		return func() bool { return slices.Contains(toolNames(t, cs), name) }
	}
	lacks := func(cs *mcp.ClientSession, prefix string) func() bool {
		return func() bool {
			return !slices.ContainsFunc(toolNames(t, cs), func(n string) bool { return strings.HasPrefix(n, prefix) })
		}
	}
	counts := func(step string, wantA, wantB int32) {
		t.Helper()
		settle()
		if ga, gb := na.n.Load(), nb.n.Load(); ga != wantA || gb != wantB {
			t.Fatalf("%s: tools/list_changed a=%d b=%d, want a=%d b=%d; the tools after each:\na: %s\nb: %s",
				step, ga, gb, wantA, wantB, na.String(), nb.String())
		}
	}

	// A session-scoped server's list_changed: a only.
	call(t, a, "own__add_tool", map[string]any{"name": "mine"})
	testwait.For(t, "a to list own__mine", has(a, "own__mine"))
	counts("own list_changed", 1, 0)
	if has(b, "own__mine")() {
		t.Error("b lists a's own__mine")
	}
	// The pool-scoped server's list_changed: both.
	call(t, b, "shared__add_tool", map[string]any{"name": "ours"})
	testwait.For(t, "a to list shared__ours", has(a, "shared__ours"))
	testwait.For(t, "b to list shared__ours", has(b, "shared__ours"))
	counts("shared list_changed", 2, 1)

	// a's own server crashes and cannot come back: a's tools lose it, b's do not.
	down := filepath.Join(dir, "own.down")
	writeDown(t, down)
	crash(t, a, "own__crash")
	testwait.For(t, "a's own server to be left out", lacks(a, "own__"))
	counts("own degraded", 3, 1)
	if !has(b, "own__echo")() {
		t.Error("b lost its own server's tools when a's crashed")
	}
	// It may start again: a's tools get it back, b hears nothing.
	removeDown(t, down)
	testwait.For(t, "a's own server to recover", has(a, "own__echo"))
	counts("own recovered", 4, 1)

	// The shared server crashes for good: both lose it; then both get it back.
	down = filepath.Join(dir, "shared.down")
	writeDown(t, down)
	crash(t, b, "shared__crash")
	testwait.For(t, "a to lose the shared server", lacks(a, "shared__"))
	testwait.For(t, "b to lose the shared server", lacks(b, "shared__"))
	counts("shared degraded", 5, 2)
	removeDown(t, down)
	testwait.For(t, "a to get the shared server back", has(a, "shared__echo"))
	testwait.For(t, "b to get the shared server back", has(b, "shared__echo"))
	counts("shared recovered", 6, 3)
}

func writeDown(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func removeDown(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// crash calls a crash tool (the process exits: the call fails) and then the server's echo,
// whose reconnect fails while the server cannot start: that is what degrades it.
func crash(t *testing.T, cs *mcp.ClientSession, tool string) {
	t.Helper()
	ctx := context.Background()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Fatalf("%s succeeded", tool)
	}
	echo := strings.TrimSuffix(tool, "crash") + "echo"
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: echo, Arguments: map[string]any{"text": "x"}}); err == nil && !res.IsError {
		t.Fatalf("%s succeeded on a server that cannot start", echo)
	}
}

// newHTTPServer serves g over real HTTP on 127.0.0.1 and closes g, the server and h when the
// test ends; it returns the URL.
func newHTTPServer(t *testing.T, g *gateway.Gateway, h *host.Host) string {
	t.Helper()
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := g.Close(ctx); err != nil {
			t.Errorf("gateway close: %v", err)
		}
		srv.Close()
		if err := h.Close(ctx); err != nil {
			t.Errorf("host close: %v", err)
		}
	})
	return srv.URL
}

// toolNotes counts a client's tools/list_changed and keeps the tools it lists after each.
type toolNotes struct {
	n     atomic.Int32
	mu    sync.Mutex
	after []string
}

func (tn *toolNotes) String() string {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	return strings.Join(tn.after, "\n   ")
}

// connectLogged connects a go-sdk client over streamable HTTP that records its
// tools/list_changed notifications; it is closed when the test ends.
func connectLogged(t *testing.T, url string) (*mcp.ClientSession, *toolNotes) {
	t.Helper()
	tn := &toolNotes{}
	var wg sync.WaitGroup
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(_ context.Context, r *mcp.ToolListChangedRequest) {
			tn.n.Add(1)
			wg.Add(1)
			go func() { // not on the reading goroutine, which must go on to read the answer
				defer wg.Done()
				res, err := r.Session.ListTools(context.Background(), nil)
				line := fmt.Sprint(err)
				if err == nil {
					var names []string
					for _, tl := range res.Tools {
						names = append(names, tl.Name)
					}
					line = strings.Join(names, " ")
				}
				tn.mu.Lock()
				tn.after = append(tn.after, line)
				tn.mu.Unlock()
			}()
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); wg.Wait() })
	return cs, tn
}
