package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fwdFixture is a gateway over a host with the fault server twice: "pool", one process shared
// by every session, and "own", a process per session. Each logs its sleep calls ("begin",
// "cancelled", "done" and its pid) to its own file.
type fwdFixture struct {
	url              string
	poolLog, ownLogs string
}

func newFwdFixture(t *testing.T) *fwdFixture {
	t.Helper()
	bin := testserver.Build(t)
	dir := t.TempDir()
	f := &fwdFixture{poolLog: filepath.Join(dir, "pool.log"), ownLogs: filepath.Join(dir, "own.log")}
	_, srv := revGateway(t, "mcp_servers:\n"+
		"  pool: {command: "+bin+", args: [--log, "+f.poolLog+"]}\n"+
		"  own: {command: "+bin+", args: [--log, "+f.ownLogs+"], scope: session}\n", nil)
	f.url = srv.URL
	return f
}

// received is what a client got from the gateway besides results.
type received struct {
	mu       sync.Mutex
	logs     []string // "level:text"
	progress []string // "progress/total message"
}

func (r *received) has(list *[]string, want string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range *list {
		if s == want {
			return true
		}
	}
	return false
}

// fwdClient connects a client named name that answers sampling with "<name> says: <text>",
// has the root file:///<name>, and records log messages and progress.
func fwdClient(t *testing.T, url, name string) (*mcp.ClientSession, *received) {
	t.Helper()
	rec := &received{}
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			in := r.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: "assistant", Model: name, Content: &mcp.TextContent{Text: name + " says: " + in}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			rec.mu.Lock()
			rec.logs = append(rec.logs, string(r.Params.Level)+":"+r.Params.Data.(string))
			rec.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			rec.mu.Lock()
			rec.progress = append(rec.progress, fmtProgress(r.Params))
			rec.mu.Unlock()
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///" + name, Name: name})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, rec
}

func fmtProgress(p *mcp.ProgressNotificationParams) string {
	return strconv.FormatFloat(p.Progress, 'g', -1, 64) + "/" + strconv.FormatFloat(p.Total, 'g', -1, 64) + " " + p.Message
}

// callResult calls a tool and returns its text and whether it is a tool error.
func callResult(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// logLines returns the lines of a fault server's --log file.
func logLines(path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Fields(strings.ReplaceAll(string(b), "\n", " | "))
}

func logHas(path, word string) bool {
	b, _ := os.ReadFile(path)
	return strings.Contains(string(b), word)
}

// A pool-scoped server shared by two sessions: a request for sampling (or roots) reaches the
// client whose call caused it while that call is the only one in flight; while calls of both
// sessions are in flight it fails with an error that says why. Cancelling a call cancels it
// upstream and leaves the shared server up.
func TestServerRequestsRoutedToTheCaller(t *testing.T) {
	f := newFwdFixture(t)
	a, _ := fwdClient(t, f.url, "alice")
	b, _ := fwdClient(t, f.url, "bob")
	ctx := context.Background()

	if got, isErr := callResult(t, ctx, a, "pool__sample", map[string]any{"text": "hi"}); isErr || got != "alice says: hi" {
		t.Errorf("alice's sample: %q (error %v), want alice's client to answer", got, isErr)
	}
	if got, isErr := callResult(t, ctx, b, "pool__sample", map[string]any{"text": "hi"}); isErr || got != "bob says: hi" {
		t.Errorf("bob's sample: %q (error %v), want bob's client to answer", got, isErr)
	}
	if got, isErr := callResult(t, ctx, b, "pool__roots", map[string]any{}); isErr || got != "file:///bob" {
		t.Errorf("bob's roots: %q (error %v), want bob's roots", got, isErr)
	}
	pid, _ := callResult(t, ctx, a, "pool__pid", map[string]any{})

	// Alice's slow call is in flight (the server logged its start) when bob's call samples.
	slow, cancel := context.WithCancel(ctx)
	slowDone := make(chan error, 1)
	go func() {
		_, err := a.CallTool(slow, &mcp.CallToolParams{Name: "pool__sleep", Arguments: map[string]any{"ms": 600000}})
		slowDone <- err
	}()
	testwait.For(t, "alice's sleep to begin upstream", func() bool { return logHas(f.poolLog, "begin") })
	got, isErr := callResult(t, ctx, b, "pool__sample", map[string]any{"text": "hi"})
	if !isErr || !strings.Contains(got, "calls of 2 clients were in flight") || !strings.Contains(got, "several clients could be asked") {
		t.Errorf("bob's sample while alice's call is in flight: %q (error %v), want a clear refusal", got, isErr)
	}

	cancel()
	if err := <-slowDone; err == nil {
		t.Error("the cancelled call succeeded")
	}
	testwait.For(t, "the upstream call to be cancelled", func() bool { return logHas(f.poolLog, "cancelled "+pid) })
	if again, _ := callResult(t, ctx, a, "pool__pid", map[string]any{}); again != pid {
		t.Errorf("after a cancelled call the shared server is pid %s, was %s: want the same server, still up", again, pid)
	}
	if got, isErr := callResult(t, ctx, b, "pool__sample", map[string]any{"text": "again"}); isErr || got != "bob says: again" {
		t.Errorf("bob's sample once alone again: %q (error %v)", got, isErr)
	}
	if strings.Contains(strings.Join(logLines(f.poolLog), " "), "done") {
		t.Error("the cancelled sleep ran to its end upstream")
	}
}

// A session-scoped server has one client: its requests always reach that session's client,
// whatever the other sessions have in flight.
func TestSessionServerRequestsAlwaysRoutedRight(t *testing.T) {
	f := newFwdFixture(t)
	a, _ := fwdClient(t, f.url, "alice")
	b, _ := fwdClient(t, f.url, "bob")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slowDone := make(chan struct{})
	go func() {
		defer close(slowDone)
		_, _ = a.CallTool(ctx, &mcp.CallToolParams{Name: "own__sleep", Arguments: map[string]any{"ms": 600000}})
	}()
	testwait.For(t, "alice's sleep to begin upstream", func() bool { return logHas(f.ownLogs, "begin") })
	for _, c := range []struct {
		cs   *mcp.ClientSession
		want string
	}{{b, "bob says: x"}, {a, "alice says: x"}, {b, "bob says: x"}} {
		if got, isErr := callResult(t, context.Background(), c.cs, "own__sample", map[string]any{"text": "x"}); isErr || got != c.want {
			t.Errorf("sample: %q (error %v), want %q", got, isErr, c.want)
		}
	}
	cancel()
	<-slowDone
}

// Progress reaches the caller under its own token, and before the call's result; upstream
// log messages reach every session that sees the server, at each session's level.
func TestProgressAndLogsForwarded(t *testing.T) {
	f := newFwdFixture(t)
	a, ra := fwdClient(t, f.url, "alice")
	b, rb := fwdClient(t, f.url, "bob")
	ctx := context.Background()
	if err := a.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}

	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "own__progress", Arguments: map[string]any{"steps": 3},
		Meta: mcp.Meta{"progressToken": "alice-token"}})
	if err != nil || res.IsError {
		t.Fatalf("progress: %v %+v", err, res)
	}
	for _, want := range []string{"1/3 step 1", "2/3 step 2", "3/3 step 3"} {
		testwait.For(t, "progress "+want, func() bool { return ra.has(&ra.progress, want) })
	}
	if rb.has(&rb.progress, "1/3 step 1") {
		t.Error("bob got alice's progress")
	}

	// On the pool server, which both see: bob (debug) gets both, alice (warning) only the
	// second; messages on one stream arrive in order, so once alice has "loud" she would
	// have had "quiet" before it.
	callResult(t, ctx, a, "pool__log", map[string]any{"level": "info", "text": "quiet"})
	callResult(t, ctx, a, "pool__log", map[string]any{"level": "warning", "text": "loud"})
	testwait.For(t, "alice's warning", func() bool { return ra.has(&ra.logs, "warning:loud") })
	testwait.For(t, "bob's info", func() bool { return rb.has(&rb.logs, "info:quiet") })
	testwait.For(t, "bob's warning", func() bool { return rb.has(&rb.logs, "warning:loud") })
	if ra.has(&ra.logs, "info:quiet") {
		t.Error("alice got an info message below her level (warning)")
	}
	// The session-scoped server of bob logs to bob only.
	callResult(t, ctx, b, "own__log", map[string]any{"level": "error", "text": "bob-only"})
	testwait.For(t, "bob's own log", func() bool { return rb.has(&rb.logs, "error:bob-only") })
	callResult(t, ctx, a, "pool__log", map[string]any{"level": "error", "text": "after"})
	testwait.For(t, "alice's later message", func() bool { return ra.has(&ra.logs, "error:after") })
	if ra.has(&ra.logs, "error:bob-only") {
		t.Error("alice got a message of bob's own server")
	}
}

// Two sessions subscribed to a resource of the shared server: the server is subscribed once
// (the second session's subscription shares it) and its update reaches both; the last
// session to let go unsubscribes upstream.
func TestSubscriptionsSharedUpstream(t *testing.T) {
	f := newFwdFixture(t)
	const uri = "test://static/hello"
	updates := map[string]chan string{"alice": make(chan string, 10), "bob": make(chan string, 10)}
	sessions := map[string]*mcp.ClientSession{}
	for name, ch := range updates {
		c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { ch <- r.Params.URI },
		})
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		sessions[name] = cs
	}
	ctx := context.Background()
	for _, name := range []string{"alice", "bob"} {
		if err := sessions[name].Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("%s subscribes: %v", name, err)
		}
	}
	if n := strings.Count(strings.Join(logLines(f.poolLog), " "), "subscribe"); n != 1 {
		t.Errorf("the shared server got %d subscribe requests, want 1: %v", n, logLines(f.poolLog))
	}
	callResult(t, ctx, sessions["alice"], "pool__touch", map[string]any{"uri": uri})
	for name, ch := range updates {
		select {
		case got := <-ch:
			if got != uri {
				t.Errorf("%s: resources/updated for %q, want %q", name, got, uri)
			}
		case <-time.After(20 * time.Second): // a liveness bound, not a timing claim
			t.Fatalf("%s never got resources/updated", name)
		}
	}
	if err := sessions["alice"].Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if logHas(f.poolLog, "unsubscribe") {
		t.Error("the server was unsubscribed while bob still holds the subscription")
	}
	if err := sessions["bob"].Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if !logHas(f.poolLog, "unsubscribe "+uri) {
		t.Error("the last unsubscribe did not reach the server")
	}
}

// A client that did not declare sampling is not asked: the server gets the error the client
// would have given, naming what is missing.
func TestUndeclaredCapabilityRefused(t *testing.T) {
	f := newFwdFixture(t)
	cs, _ := connect(t, f.url, nil) // declares no sampling
	got, isErr := callResult(t, context.Background(), cs, "own__sample", map[string]any{"text": "hi"})
	if !isErr || !strings.Contains(got, "did not declare sampling") {
		t.Errorf("sample for a client without sampling: %q (error %v), want a refusal naming sampling", got, isErr)
	}
}
