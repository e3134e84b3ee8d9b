package mcpcap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder collects change events.
type recorder struct {
	mu  sync.Mutex
	evs []ext.ChangeEvent
}

func (r *recorder) add(ev ext.ChangeEvent) { r.mu.Lock(); r.evs = append(r.evs, ev); r.mu.Unlock() }

func (r *recorder) count(kind ext.ChangeKind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.evs {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

func (r *recorder) has(ev ext.ChangeEvent) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.evs, ev)
}

func ptr[T any](v T) *T { return &v }

type skillsServer struct {
	skills []*SkillInfo
}

// richServer is an in-process MCP server exercising every feature the Cap converts.
func richServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "rich", Version: "1"}, &mcp.ServerOptions{
		Instructions: "use the rich tools",
		Capabilities: &mcp.ServerCapabilities{Extensions: map[string]any{SkillsExtension: map[string]any{}}},
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{r.Params.Argument.Value + "-done"}}}, nil
		},
	})
	type textArg struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hidden", Description: "denied by config"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "tool-level error"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it broke"}}}, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "rich", Description: "every content kind", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return richResult(), nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "adds a tool"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: in.Text, Description: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil, nil
			})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	read := func(text string) mcp.ResourceHandler {
		return func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: text + r.Params.URI}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{URI: "test://static/hello", Name: "hello", MIMEType: "text/plain", Meta: mcp.Meta{"k": "v"}}, read("hello "))
	s.AddResource(&mcp.Resource{URI: "skill://remote-pdf/SKILL.md", Name: "remote-pdf", Description: "pdf over mcp", MIMEType: "text/markdown"}, read("---\nname: remote-pdf\n---\n"))
	s.AddResource(&mcp.Resource{URI: "skill://remote-pdf/refs/FORMS.md", Name: "forms"}, read("forms "))
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://dyn/{id}", Name: "dyn"}, read("dyn "))
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "greets", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}, {Name: "tone"}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Hello " + r.Params.Arguments["name"]}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "tone=" + r.Params.Arguments["tone"]}},
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "plain"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "plain"}}}}, nil
	})
	sep := []*SkillInfo{
		{URI: "skill://acme/refunds/SKILL.md", Frontmatter: map[string]any{"name": "refunds", "description": "refund policy"},
			Resources: json.RawMessage(`[{"uri":"skill://acme/refunds/SKILL.md","digest":"sha256:00","size":3},{"uri":"skill://acme/refunds/email.md","digest":"sha256:01","size":3}]`)},
		{URI: "skill://gen/SKILL.md", Frontmatter: map[string]any{"name": "gen", "description": "generated"}, Resources: json.RawMessage(`"dynamic"`)},
		{URI: "skill://broken/SKILL.md", Frontmatter: map[string]any{"name": "broken", "description": "no resources"}},
		// Dynamic entries whose URI is not <skill-path>/SKILL.md would claim prefixes of other
		// skills ("skill://gen" matches skill://gen-evil/…, "skill://SKILL.md" every skill): skipped.
		{URI: "skill://gen", Frontmatter: map[string]any{"name": "greedy", "description": "x"}, Resources: json.RawMessage(`"dynamic"`)},
		{URI: "skill://SKILL.md", Frontmatter: map[string]any{"name": "all", "description": "x"}, Resources: json.RawMessage(`"dynamic"`)},
		{URI: "skill://gen/README.md", Frontmatter: map[string]any{"name": "readme", "description": "x"}, Resources: json.RawMessage(`"dynamic"`)},
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "skill://{+path}", Name: "skills"}, read("skill file "))
	if err := mcp.AddReceivingCustomMethod(s, MethodSkillsList, func(context.Context, *mcp.ServerSession, *SkillsListParams) (*SkillsListResult, error) {
		return &SkillsListResult{Skills: sep}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func richResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Meta:              mcp.Meta{"trace": "abc"},
		StructuredContent: map[string]any{"sum": 3.0},
		Content: []mcp.Content{
			&mcp.TextContent{Text: "hi", Meta: mcp.Meta{"m": 1.0}, Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}},
			&mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
			&mcp.AudioContent{Data: []byte{4, 5}, MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "test://x", Name: "x", Title: "X", Description: "d", MIMEType: "text/plain", Size: ptr(int64(42)), Icons: []mcp.Icon{{Source: "https://i/x.png"}}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://e", MIMEType: "application/octet-stream", Blob: []byte{9, 8}, Meta: mcp.Meta{"e": true}}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://t", Text: "embedded"}},
		},
	}
}

// inMemCap connects a client session to srv over in-memory transports and wraps it in a Cap
// whose notifications are forwarded through HandleNotification.
func inMemCap(t *testing.T, srv *mcp.Server, cfg Config) (*Cap, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var capRef struct {
		sync.Mutex
		c *Cap
	}
	forward := func(n connpool.Notification) {
		capRef.Lock()
		c := capRef.c
		capRef.Unlock()
		if c != nil {
			c.HandleNotification(n)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			forward(connpool.Notification{Kind: connpool.ToolsListChanged})
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			forward(connpool.Notification{Kind: connpool.ResourcesListChanged})
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			forward(connpool.Notification{Kind: connpool.PromptsListChanged})
		},
	})
	if err := RegisterSkillMethods(client); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(cfg, WithClient(cs))
	if err != nil {
		t.Fatal(err)
	}
	capRef.Lock()
	capRef.c = c
	capRef.Unlock()
	t.Cleanup(func() {
		if err := c.Close(ctx); err != nil {
			t.Error(err)
		}
		cs.Close()
		ss.Wait()
	})
	return c, cs
}

func TestToolsPrefixFilterAndCall(t *testing.T) {
	ctx := context.Background()
	c, _ := inMemCap(t, richServer(t), Config{Name: "rich", Prefix: ptr("r_"), DenyTools: []string{"hid*"}})
	if st := c.Status(); st.State != StateIdle {
		t.Fatalf("before use: state %s, want idle (New must do no I/O)", st.State)
	}
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"r_add_tool", "r_echo", "r_fail", "r_rich"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	res, err := c.CallTool(ctx, &ext.ToolCall{Name: "r_echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Text; got != "hello" {
		t.Fatalf("echo = %q", got)
	}
	if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "r_hidden", Arguments: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Fatalf("denied tool: err = %v, want ErrNotFound", err)
	}
	if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Fatalf("unprefixed name: err = %v, want ErrNotFound", err)
	}
	res, err = c.CallTool(ctx, &ext.ToolCall{Name: "r_fail", Arguments: nil})
	if err != nil || !res.IsError || res.Content[0].Text != "it broke" {
		t.Fatalf("fail: res=%+v err=%v, want IsError result", res, err)
	}
	ins, _ := c.Instructions(ctx)
	if ins.Static != "use the rich tools" {
		t.Fatalf("instructions = %q", ins.Static)
	}
	if st := c.Status(); st.State != StateConnected || st.Tools != 4 {
		t.Fatalf("status = %+v", st)
	}
}

// TestResultRoundTrip checks that every content kind survives conversion: the ext result
// marshals to the same JSON the server sent.
func TestResultRoundTrip(t *testing.T) {
	ctx := context.Background()
	c, cs := inMemCap(t, richServer(t), Config{Name: "rich"})
	got, err := c.CallTool(ctx, &ext.ToolCall{Name: "rich", Arguments: nil})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rich"})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(direct)
	gotJSON, _ := json.Marshal(got)
	var want, have any
	json.Unmarshal(wantJSON, &want)
	json.Unmarshal(gotJSON, &have)
	delete(want.(map[string]any), "resultType") // protocol framing (SEP-2322), not content
	if d := cmp.Diff(want, have); d != "" {
		t.Fatalf("round trip differs (-sdk +ext):\n%s\nsdk: %s\next: %s", d, wantJSON, gotJSON)
	}
	if len(got.Content) != 6 || got.Content[1].Type != ext.ContentImage || string(got.Content[1].Data) != "\x01\x02\x03" {
		t.Fatalf("content = %+v", got.Content)
	}
}

func TestResourcesAndTemplates(t *testing.T) {
	ctx := context.Background()
	c, _ := inMemCap(t, richServer(t), Config{Name: "rich"})
	rs, err := c.ListResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0].URI == "" {
		t.Fatalf("resources = %+v", rs)
	}
	var hello ext.ResourceEntry
	for _, r := range rs {
		if r.URI == "test://static/hello" {
			hello = r
		}
	}
	if string(hello.Meta) != `{"k":"v"}` || hello.MIMEType != "text/plain" {
		t.Fatalf("hello entry = %+v", hello)
	}
	tmpls, err := c.ListResourceTemplates(ctx)
	if err != nil || len(tmpls) != 2 {
		t.Fatalf("templates = %+v, %v", tmpls, err)
	}
	for _, tc := range []struct {
		uri  string
		want bool
	}{
		{"test://static/hello", true},
		{"mcp://rich/test://static/hello", true},
		{"mcp://other/test://static/hello", false},
		{"test://dyn/42", true},
		{"test://static/nope", false},
		{"file:///etc/passwd", false},
	} {
		got, err := c.ResourceExists(ctx, tc.uri)
		if err != nil || got != tc.want {
			t.Errorf("ResourceExists(%q) = %v, %v; want %v", tc.uri, got, err, tc.want)
		}
	}
	rc, err := c.ReadResource(ctx, "mcp://rich/test://dyn/7")
	if err != nil || len(rc) != 1 || rc[0].Text != "dyn test://dyn/7" {
		t.Fatalf("read template = %+v, %v", rc, err)
	}
	if _, err := c.ReadResource(ctx, "test://static/nope"); !errors.Is(err, ext.ErrNotFound) {
		t.Fatalf("unknown resource: err = %v, want ErrNotFound", err)
	}
	schemes, err := c.ResourceSchemes(ctx)
	if err != nil || !slices.Contains(schemes, "test") || slices.Contains(schemes, "mcp") {
		t.Fatalf("ResourceSchemes = %v, %v", schemes, err)
	}
}

func TestPromptsAsCommands(t *testing.T) {
	ctx := context.Background()
	c, _ := inMemCap(t, richServer(t), Config{Name: "rich"})
	cmds, err := c.ListCommands(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var greet ext.CommandEntry
	for _, e := range cmds {
		if e.Name == "rich:greet" {
			greet = e
		}
	}
	want := ext.CommandEntry{Name: "rich:greet", QualifiedName: "rich:greet", Description: "greets", ArgumentHint: "<name> [tone]", Source: "mcp",
		Arguments: []ext.CommandArgument{{Name: "name", Required: true}, {Name: "tone"}}}
	if d := cmp.Diff(want, greet); d != "" {
		t.Fatalf("greet entry (-want +got):\n%s", d)
	}
	out, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "/rich:greet", Args: []string{"Ada", "very", "warm"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Text() != "Hello Ada\n\ntone=very warm" {
		t.Fatalf("expanded = %q", out.Text())
	}
	if out, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "greet", Args: []string{"Bo"}}); err != nil || out.Text() != "Hello Bo\n\ntone=" {
		t.Fatalf("plain name: %q, %v", out.Text(), err)
	}
	if _, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "rich:greet", Args: nil}); err == nil || !strings.Contains(err.Error(), `"name"`) {
		t.Fatalf("missing required arg: err = %v", err)
	}
	if _, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "rich:plain", Args: []string{"x"}}); err == nil {
		t.Fatal("args for a prompt without arguments: want error")
	}
	if _, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "rich:nope", Args: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Fatalf("unknown command: err = %v", err)
	}
	res, err := c.Complete(ctx, &ext.CompleteRequest{Ref: ext.CompleteRef{Type: "ref/prompt", Name: "greet"}, Argument: ext.CompleteArgument{Name: "name", Value: "A"}})
	if err != nil || len(res.Values) != 1 || res.Values[0] != "A-done" {
		t.Fatalf("complete = %+v, %v", res, err)
	}
}

func TestSkills(t *testing.T) {
	ctx := context.Background()
	c, _ := inMemCap(t, richServer(t), Config{Name: "rich"})
	skills, err := c.ListSkills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []ext.SkillEntry{
		{URI: "skill://remote-pdf/SKILL.md", Name: "remote-pdf", Description: "pdf over mcp", MIMEType: "text/markdown", Origin: "mcp://rich"},
		{URI: "skill://acme/refunds/SKILL.md", Name: "refunds", Description: "refund policy", MIMEType: "text/markdown", Origin: "mcp://rich"},
		{URI: "skill://gen/SKILL.md", Name: "gen", Description: "generated", MIMEType: "text/markdown", Origin: "mcp://rich"},
	}
	if d := cmp.Diff(want, skills); d != "" {
		t.Fatalf("skills (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		uri  string
		want bool
	}{
		{"skill://remote-pdf/SKILL.md", true},
		{"skill://remote-pdf/refs/FORMS.md", true},
		{"skill://acme/refunds/email.md", true},
		{"skill://acme/refunds/other.md", false}, // not listed
		{"skill://gen/anything/deep.md", true},   // dynamic skill root
		{"skill://gen/../remote-pdf/SKILL.md", false},
		{"skill://gen/%2e%2e/x", false},
		{"skill://broken/SKILL.md", false}, // invalid entry: no resources
		{"skill://local-only/SKILL.md", false},
		{"skill://gen-evil/SKILL.md", false}, // not under "skill://gen/"
		{"skill://other/x.md", false},
	} {
		got, err := c.SkillExists(ctx, tc.uri)
		if err != nil || got != tc.want {
			t.Errorf("SkillExists(%q) = %v, %v; want %v", tc.uri, got, err, tc.want)
		}
	}
	rc, err := c.ReadSkill(ctx, "skill://acme/refunds/email.md")
	if err != nil || rc[0].Text != "skill file skill://acme/refunds/email.md" {
		t.Fatalf("ReadSkill = %+v, %v", rc, err)
	}
	for _, bad := range []string{"skill://gen/../../etc/passwd", "skill://gen/%2E%2E/x", "skill://gen/%252e%252e/x", `skill://gen/..\x`, "skill://gen/a\x00b"} {
		if _, err := c.ReadSkill(ctx, bad); !errors.Is(err, ext.ErrPathTraversal) {
			t.Errorf("ReadSkill(%q): err = %v, want ErrPathTraversal", bad, err)
		}
	}
	if _, err := c.ReadSkill(ctx, "skill://local-only/SKILL.md"); !errors.Is(err, ext.ErrNotFound) {
		t.Fatalf("unlisted skill: err = %v, want ErrNotFound", err)
	}
}

func TestNotificationsMapToEvents(t *testing.T) {
	ctx := context.Background()
	c, _ := inMemCap(t, richServer(t), Config{Name: "rich"})
	var rec recorder
	stop := c.Observe(rec.add)
	defer stop()
	if _, err := c.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListSkills(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "add_tool", Arguments: json.RawMessage(`{"text":"newtool"}`)}); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "tools_changed", func() bool { return rec.count(ext.ToolsChanged) > 0 })
	tools, err := c.Tools(ctx)
	if err != nil || !slices.ContainsFunc(tools, func(e ext.ToolEntry) bool { return e.Name == "newtool" }) {
		t.Fatalf("after list_changed, tools = %v, %v; want newtool", tools, err)
	}
	if res, err := c.CallTool(ctx, &ext.ToolCall{Name: "newtool", Arguments: nil}); err != nil || res.Content[0].Text != "added" {
		t.Fatalf("call new tool: %v, %v", res, err)
	}
	c.HandleNotification(connpool.Notification{Kind: connpool.ResourcesListChanged})
	c.HandleNotification(connpool.Notification{Kind: connpool.PromptsListChanged})
	c.HandleNotification(connpool.Notification{Kind: connpool.ResourceUpdated, URI: "skill://remote-pdf/SKILL.md"})
	for _, ev := range []ext.ChangeEvent{
		{Capability: "rich", Kind: ext.ResourcesChanged},
		{Capability: "rich", Kind: ext.SkillsChanged},
		{Capability: "rich", Kind: ext.PromptsChanged},
		{Capability: "rich", Kind: ext.CommandsChanged},
		{Capability: "rich", Kind: ext.ResourcesChanged, SourceURI: "skill://remote-pdf/SKILL.md"},
		{Capability: "rich", Kind: ext.SkillsChanged, SourceURI: "skill://remote-pdf/SKILL.md"},
	} {
		if !rec.has(ev) {
			t.Errorf("missing event %+v in %+v", ev, rec.evs)
		}
	}
}

func TestLazyServesStaticToolsUntilFirstCall(t *testing.T) {
	ctx := context.Background()
	static := []ext.ToolEntry{{Name: "echo", Description: "static echo", Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}}}
	c, _ := inMemCap(t, richServer(t), Config{Name: "rich", Lazy: true, Tools: static})
	var rec recorder
	defer c.Observe(rec.add)()
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Description != "static echo" {
		t.Fatalf("lazy tools = %+v, %v", tools, err)
	}
	if st := c.Status(); st.State != StateIdle {
		t.Fatalf("lazy listing connected: %+v", st)
	}
	if res, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil || res.Content[0].Text != "x" {
		t.Fatalf("first call: %v, %v", res, err)
	}
	if rec.count(ext.ToolsChanged) != 1 {
		t.Fatalf("tools_changed after the real listing replaced static tools: %d events", rec.count(ext.ToolsChanged))
	}
	tools, _ = c.Tools(ctx)
	if len(tools) != 5 {
		t.Fatalf("after connect, tools = %d, want the server's 5", len(tools))
	}
}

func TestNewValidates(t *testing.T) {
	cs := &mcp.ClientSession{}
	for _, tc := range []struct {
		cfg  Config
		opts []Option
		want string
	}{
		{Config{}, []Option{WithClient(cs)}, "name is required"},
		{Config{Name: "x", Scope: "galaxy"}, []Option{WithClient(cs)}, `scope "galaxy"`},
		{Config{Name: "x", Retry: decl.Retry{Calls: "sometimes"}}, []Option{WithClient(cs)}, "retry.calls"},
		{Config{Name: "x", Retry: decl.Retry{Attempts: MaxAttempts + 1}}, []Option{WithClient(cs)}, "retry.attempts"},
		{Config{Name: "x", AllowTools: []string{"[bad"}}, []Option{WithClient(cs)}, "tool pattern"},
		{Config{Name: "x"}, nil, "WithClient or WithPool"},
		{Config{Name: "x", Scope: ScopeSession, Server: connpool.ServerConfig{Server: decl.Server{Command: "true"}}}, []Option{WithPool(connpool.New(nil), "")}, "session id"},
		{Config{Name: "x", Server: connpool.ServerConfig{}}, []Option{WithPool(connpool.New(nil), "")}, "x"},
	} {
		_, err := New(tc.cfg, tc.opts...)
		if err == nil || !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidConfig mentioning %q", tc.cfg, err, tc.want)
		}
	}
}

func TestCloseIdempotentAndWithoutUse(t *testing.T) {
	c, err := New(Config{Name: "x", Server: connpool.ServerConfig{Server: decl.Server{Command: "true"}}}, WithPool(connpool.New(nil), ""))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Tools(ctx); !errors.Is(err, ext.ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
	if st := c.Status(); st.State != StateClosed {
		t.Fatalf("status %s", st.State)
	}
	_ = fmt.Sprint()
}
