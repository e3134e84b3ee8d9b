package mcpcap

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressSink is an ext.ToolCall.Progress sink that keeps what it got.
type progressSink struct {
	mu  sync.Mutex
	got []ext.Progress
}

func (s *progressSink) add(p ext.Progress) { s.mu.Lock(); s.got = append(s.got, p); s.mu.Unlock() }

func (s *progressSink) list() []ext.Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// wireProgress records the progress notifications a pooled connection delivers, through a
// lease of the test's own: what the server sent, whoever it was for.
type wireProgress struct {
	mu     sync.Mutex
	tokens []any
}

func watchProgress(t *testing.T, p *connpool.Pool, cfg connpool.ServerConfig) *wireProgress {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lease, err := p.Get(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Release(lease) })
	w := &wireProgress{}
	lease.Observe(func(n connpool.Notification) {
		if pn, ok := n.Params.(*mcp.ProgressNotificationParams); ok && n.Kind == connpool.Progress {
			w.mu.Lock()
			w.tokens = append(w.tokens, pn.ProgressToken)
			w.mu.Unlock()
		}
	})
	return w
}

func (w *wireProgress) list() []any {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.tokens)
}

// steps is what a server sends for a call of n steps: progress 1…n of total n, with message(i)
// when message is set.
func steps(n int, message func(int) string) []ext.Progress {
	var out []ext.Progress
	for i := 1; i <= n; i++ {
		p := ext.Progress{Progress: float64(i), Total: float64(n)}
		if message != nil {
			p.Message = message(i)
		}
		out = append(out, p)
	}
	return out
}

func TestProgressEverythingStdio(t *testing.T) {
	bin := everythingBin(t)
	progressEverything(t, Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"stdio"}}}})
}

func TestProgressEverythingStreamableHTTP(t *testing.T) {
	url := startEverythingHTTP(t, everythingBin(t))
	progressEverything(t, Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Type: "streamable-http", URL: url}}})
}

// progressEverything calls server-everything's trigger-long-running-operation, which sends one
// progress notification per step only when the request carries a progress token. Two Caps with
// the same configuration and partition share one pooled connection; each call's sink must get
// exactly its own call's notifications, in order, by the time the call returns (a gateway
// forwards them to its client, which must see them before the result).
func progressEverything(t *testing.T, cfg Config) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := newPool(t)
	a := newPoolCap(t, p, "", cfg)
	b := newPoolCap(t, p, "", cfg)
	if _, err := a.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	wire := watchProgress(t, p, cfg.Server)
	if st := p.Stats(); st.Clients != 1 || st.Leases != 3 {
		t.Fatalf("pool stats %+v: want the two Caps and the watcher on one client", st)
	}
	const tool = "trigger-long-running-operation"

	// No sink: no token is sent, so the server sends nothing.
	if _, err := a.CallTool(ctx, &ext.ToolCall{Name: tool, Arguments: json.RawMessage(`{"duration":0.2,"steps":2}`)}); err != nil {
		t.Fatal(err)
	}
	if got := wire.list(); len(got) != 0 {
		t.Fatalf("a call without a progress sink got progress for tokens %v: it sent a token", got)
	}

	// Two concurrent calls, one per Cap, on the same connection.
	var sa, sb progressSink
	var atReturn [2][]ext.Progress
	var wg sync.WaitGroup
	for i, call := range []struct {
		c    *Cap
		sink *progressSink
		args string
	}{{a, &sa, `{"duration":1,"steps":3}`}, {b, &sb, `{"duration":1,"steps":4}`}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := call.c.CallTool(ctx, &ext.ToolCall{Name: tool, Arguments: json.RawMessage(call.args), Progress: call.sink.add})
			atReturn[i] = call.sink.list()
			if err != nil || res.IsError {
				t.Errorf("%s %s: %+v, %v", tool, call.args, res, err)
			}
		}()
	}
	wg.Wait()
	for i, want := range [][]ext.Progress{steps(3, nil), steps(4, nil)} {
		if !slices.Equal(atReturn[i], want) {
			t.Errorf("call %d: sink held %v when the call returned, want %v", i, atReturn[i], want)
		}
	}
	if got := sa.list(); !slices.Equal(got, steps(3, nil)) {
		t.Errorf("first sink got %v, want its own call's %v", got, steps(3, nil))
	}
	if got := sb.list(); !slices.Equal(got, steps(4, nil)) {
		t.Errorf("second sink got %v, want its own call's %v", got, steps(4, nil))
	}

	// The server got a token per call, of the Cap's making: 7 notifications, 2 tokens, and
	// nothing for the first call.
	tokens := wire.list()
	distinct := map[any]int{}
	for _, tok := range tokens {
		s, _ := tok.(string)
		if !strings.HasPrefix(s, "agentpool-") {
			t.Errorf("progress token %#v is not the Cap's", tok)
		}
		distinct[tok]++
	}
	if len(tokens) != 7 || len(distinct) != 2 {
		t.Errorf("the connection carried progress for tokens %v, want 3 and 4 notifications for two tokens", tokens)
	}
}

func TestProgressGoServerStdio(t *testing.T) {
	progressGoServer(t, losslessStdio(t))
}

func TestProgressGoServerStreamableHTTP(t *testing.T) {
	progressGoServer(t, connpool.ServerConfig{Server: decl.Server{URL: losslessHTTP(t)}})
}

// progressGoServer checks what server-everything cannot show: progress messages, and the
// caller's _meta as the server received it. Its progress tool answers at once after its last
// notification, so a Cap that let the call return before delivering what arrived ahead of the
// result would lose notifications; the calls are repeated to give such a race its chance.
func progressGoServer(t *testing.T, server connpool.ServerConfig) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := newPool(t)
	a := newPoolCap(t, p, "", Config{Name: "lossless", Server: server})
	b := newPoolCap(t, p, "", Config{Name: "lossless", Server: server})

	meta := func(c *Cap, call *ext.ToolCall) map[string]any {
		t.Helper()
		call.Name = "meta"
		res, err := c.CallTool(ctx, call)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
			t.Fatalf("meta: %s: %v", res.StructuredContent, err)
		}
		// The go-sdk client adds its own protocol keys (io.modelcontextprotocol/clientInfo,
		// …) to every request under the 2026 protocol; they are the SDK's, not the caller's.
		maps.DeleteFunc(got, func(k string, _ any) bool { return strings.HasPrefix(k, "io.modelcontextprotocol/") })
		return got
	}
	if got := meta(a, &ext.ToolCall{}); len(got) != 0 {
		t.Errorf("a call without _meta or sink sent _meta %v", got)
	}
	caller := json.RawMessage(`{"trace":"abc","nested":{"k":[1,"x"]},"progressToken":"callers-own"}`)
	if got, want := meta(a, &ext.ToolCall{Meta: caller}), map[string]any{"trace": "abc", "nested": map[string]any{"k": []any{1.0, "x"}}}; !mapsEqualJSON(got, want) {
		t.Errorf("without a sink the server got _meta %v, want the caller's %v without its progressToken", got, want)
	}
	var sink progressSink
	got := meta(a, &ext.ToolCall{Meta: caller, Progress: sink.add})
	token, _ := got["progressToken"].(string)
	delete(got, "progressToken")
	if !strings.HasPrefix(token, "agentpool-") || !mapsEqualJSON(got, map[string]any{"trace": "abc", "nested": map[string]any{"k": []any{1.0, "x"}}}) {
		t.Errorf("with a sink the server got _meta %v and token %q, want the caller's keys and a token of the Cap's", got, token)
	}

	msg := func(i int) string { return fmt.Sprintf("step %d of 5", i) }
	for round := range 25 {
		var sa, sb progressSink
		var atReturn [2][]ext.Progress
		var wg sync.WaitGroup
		for i, c := range []*Cap{a, b} {
			sink := []*progressSink{&sa, &sb}[i]
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := c.CallTool(ctx, &ext.ToolCall{Name: "progress", Arguments: json.RawMessage(`{"steps":5}`), Progress: sink.add})
				atReturn[i] = sink.list()
				if err != nil {
					t.Errorf("progress: %v", err)
					return
				}
				var sc struct {
					Token string `json:"token"`
				}
				if err := json.Unmarshal(res.StructuredContent, &sc); err != nil || !strings.HasPrefix(sc.Token, "agentpool-") {
					t.Errorf("progress: the server got token %q (%v)", sc.Token, err)
				}
			}()
		}
		wg.Wait()
		for i := range atReturn {
			if !slices.Equal(atReturn[i], steps(5, msg)) {
				t.Fatalf("round %d, call %d: sink held %v when the call returned, want %v", round, i, atReturn[i], steps(5, msg))
			}
		}
		if !slices.Equal(sa.list(), steps(5, msg)) || !slices.Equal(sb.list(), steps(5, msg)) {
			t.Fatalf("round %d: sinks got %v and %v, want each its own %v", round, sa.list(), sb.list(), steps(5, msg))
		}
	}
	// Without a sink the progress tool is called without a token.
	res, err := a.CallTool(ctx, &ext.ToolCall{Name: "progress", Arguments: json.RawMessage(`{"steps":5}`)})
	if err != nil || string(res.StructuredContent) != `{"token":null}` {
		t.Errorf("progress without a sink: %s, %v; want no token sent", res.StructuredContent, err)
	}
}

func mapsEqualJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Once a call's route is removed (CallTool returning, also when cancelled before the result),
// its sink is never called again and no call of it is still running: a gateway forwarding
// progress must not send any after the call's response.
func TestProgressRouteRemoveWaitsForSink(t *testing.T) {
	var p progressRoutes
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	token := p.add(func(ext.Progress) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	go p.deliver(&mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1})
	<-entered
	removed := make(chan struct{})
	go func() { p.remove(token); close(removed) }()
	select {
	case <-removed:
		t.Error("remove returned while the call's sink was still running")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-removed
	p.deliver(&mcp.ProgressNotificationParams{ProgressToken: token, Progress: 2})
	if n := calls.Load(); n != 1 {
		t.Errorf("sink called %d times, want 1 (nothing after remove)", n)
	}
	if n := len(p.sinks); n != 0 {
		t.Errorf("%d routes left after remove", n)
	}
}
