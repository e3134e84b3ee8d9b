package gateway_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeView: a client sees the view of its session — the skill's prompt and SKILL.md,
// the upstream's tools under their final names, the catalogue as instructions — and calls,
// reads and gets through it.
func TestServeView(t *testing.T) {
	f := newFixture(t, nil)
	cs, _ := connect(t, f.url, nil)
	ctx := context.Background()

	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "greet") {
		t.Errorf("instructions do not list the skill greet:\n%s", ins)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"fault__echo", "fault__pid", "load_skill"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if got := call(t, cs, "fault__echo", map[string]any{"text": "hi there"}); got != "hi there" {
		t.Errorf("echo = %q", got)
	}

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return p.Name == "greet" })
	if i < 0 {
		t.Fatalf("prompts lack greet: %+v", prompts.Prompts)
	}
	if a := prompts.Prompts[i].Arguments; len(a) != 1 || a[0].Name != "arguments" {
		t.Errorf("greet's arguments = %+v, want one named arguments", a)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"arguments": "the world"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" ||
		!strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "Say hello to the world.") {
		t.Errorf("prompts/get greet = %+v", got.Messages)
	}

	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "skill://greet/SKILL.md") || !slices.Contains(uris, "test://static/hello") {
		t.Errorf("resources %v lack the skill's SKILL.md or the upstream's resource", uris)
	}
	for uri, want := range map[string]string{
		"skill://greet/SKILL.md": "Say hello",
		"skill://greet/notes.md": "notes of greet", // through the skill-files template
		"test://static/hello":    "",
	} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if len(rr.Contents) == 0 || !strings.Contains(rr.Contents[0].Text, want) {
			t.Errorf("read %s = %+v, want text with %q", uri, rr.Contents, want)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://greet/../../etc/passwd"}); err == nil {
		t.Error("a traversal URI was read")
	}
}

// TestSessionsIsolated: two clients of a session-scoped upstream have their own processes
// and state.
func TestSessionsIsolated(t *testing.T) {
	f := newFixture(t, nil)
	a, _ := connect(t, f.url, nil)
	b, _ := connect(t, f.url, nil)
	if a.ID() == b.ID() {
		t.Fatalf("both sessions are %s", a.ID())
	}
	call(t, a, "fault__state_set", map[string]any{"value": "secret of a"})
	if got := call(t, b, "fault__state_get", map[string]any{}); got != "" {
		t.Errorf("session b reads %q, a's state", got)
	}
	if pa, pb := call(t, a, "fault__pid", map[string]any{}), call(t, b, "fault__pid", map[string]any{}); pa == pb {
		t.Errorf("both sessions run on process %s", pa)
	}
	if n := f.g.Sessions(); n != 2 {
		t.Errorf("Sessions() = %d, want 2", n)
	}
}

// TestSkillAddedNotifies: a skill added on disk reaches a connected session as one
// prompts/list_changed and one resources/list_changed, and no tools/list_changed (the tools
// did not change); the new prompt and resource are listed.
func TestSkillAddedNotifies(t *testing.T) {
	f := newFixture(t, nil)
	cs, n := connect(t, f.url, nil)
	ctx := context.Background()
	before, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeSkill(t, f.skills, "wave", "Wave at $ARGUMENTS.")
	testwait.For(t, "prompts and resources list_changed", func() bool { return n.prompts.Load() > 0 && n.resources.Load() > 0 })
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return p.Name == "wave" }) {
		t.Errorf("prompts after the change lack wave")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://wave/SKILL.md"}); err != nil {
		t.Errorf("read the new skill: %v", err)
	}
	// A duplicate would come within the watcher's debounce and the go-sdk's.
	settle()
	after, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, r := n.prompts.Load(), n.resources.Load(); p != 1 || r != 1 {
		t.Errorf("got %d prompts/list_changed and %d resources/list_changed, want one each", p, r)
	}
	if tc := n.tools.Load(); tc != 0 && len(after.Tools) == len(before.Tools) {
		t.Errorf("got %d tools/list_changed though the tools did not change", tc)
	}
}

// TestDeleteEndsSession: a client's DELETE (go-sdk Close) ends its session and its
// session-scoped server process; the other session is untouched.
func TestDeleteEndsSession(t *testing.T) {
	f := newFixture(t, nil)
	a, _ := connect(t, f.url, nil)
	b, _ := connect(t, f.url, nil)
	pid, err := strconv.Atoi(call(t, a, "fault__pid", map[string]any{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "the session to end", func() bool { return f.g.Sessions() == 1 })
	testwait.For(t, "the session's server process to end", func() bool { return !testwait.Alive(pid) })
	if got := call(t, b, "fault__echo", map[string]any{"text": "still here"}); got != "still here" {
		t.Errorf("other session: echo = %q", got)
	}
	if regs := f.h.Registry.Registrations(ext.Scope{SessionID: a.ID()}); len(regs) != len(f.h.Registry.Registrations(ext.Scope{})) {
		t.Errorf("the ended session still has %d registrations of its own", len(regs)-len(f.h.Registry.Registrations(ext.Scope{})))
	}
}

// TestIdleTimeoutReleasesVanishedClient: a client that initializes and then vanishes without
// DELETE has its session and process released after the idle timeout.
func TestIdleTimeoutReleasesVanishedClient(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.IdleTimeout = 300 * time.Millisecond })
	status, hdr, msgs := post(t, f.url, "", initBody, nil)
	sid := hdr.Get("Mcp-Session-Id")
	if status != http.StatusOK || sid == "" || rpcError(msgs) != nil {
		t.Fatalf("initialize: %d %v %v", status, hdr, msgs)
	}
	post(t, f.url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	_, _, msgs = post(t, f.url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault__pid","arguments":{}}}`, nil)
	var pid int
	if len(msgs) == 1 {
		if res, ok := msgs[0]["result"].(map[string]any); ok {
			if c, ok := res["content"].([]any); ok && len(c) == 1 {
				pid, _ = strconv.Atoi(c[0].(map[string]any)["text"].(string))
			}
		}
	}
	if pid == 0 {
		t.Fatalf("tools/call pid: %v", msgs)
	}
	// Gone: no more requests.
	testwait.For(t, "the idle session to end", func() bool { return f.g.Sessions() == 0 })
	testwait.For(t, "its server process to end", func() bool { return !testwait.Alive(pid) })
	if status, _, _ := post(t, f.url, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil); status != http.StatusNotFound {
		t.Errorf("a request of the expired session got %d, want 404", status)
	}
}

// TestCloseEndsEverySession: Gateway.Close ends the live sessions and refuses new ones.
func TestCloseEndsEverySession(t *testing.T) {
	f := newFixture(t, nil)
	a, _ := connect(t, f.url, nil)
	pid, _ := strconv.Atoi(call(t, a, "fault__pid", map[string]any{}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.g.Sessions(); n != 0 {
		t.Errorf("Sessions() = %d after Close", n)
	}
	if testwait.Alive(pid) {
		t.Errorf("process %d of a session outlived Close", pid)
	}
	if status, _, msgs := post(t, f.url, "", initBody, nil); status != http.StatusServiceUnavailable || rpcError(msgs) == nil {
		t.Errorf("initialize after Close: %d %v", status, msgs)
	}
}
