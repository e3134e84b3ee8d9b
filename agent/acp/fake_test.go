package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/acp"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// model answers each step with fn, streaming its text in two pieces when asked to stream.
// It records every request.
type model struct {
	fn func(req *agent.Request) (*agent.Response, error)

	mu   sync.Mutex
	reqs []*agent.Request
}

func (m *model) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	m.mu.Lock()
	cp := *req
	cp.Messages = slices.Clone(req.Messages)
	m.reqs = append(m.reqs, &cp)
	m.mu.Unlock()
	return m.fn(req)
}

func (m *model) Stream(ctx context.Context, req *agent.Request, delta func(string)) (*agent.Response, error) {
	r, err := m.Generate(ctx, req)
	if err == nil && r.Text != "" {
		half := len(r.Text) / 2
		delta(r.Text[:half])
		delta(r.Text[half:])
	}
	return r, err
}

func (m *model) requests() []*agent.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// lastText is the text of the request's last message.
func lastText(req *agent.Request) string { return req.Messages[len(req.Messages)-1].Text() }

// box is an in-process capability, remote as an MCP server named box would be: tools served by
// functions and commands that expand to "<name>: <args>", with change events.
type box struct {
	ext.Notifier
	mu       sync.Mutex
	tools    map[string]func(ctx context.Context, args json.RawMessage) (*ext.ToolResult, error)
	commands []string
}

func newBox() *box {
	return &box{tools: map[string]func(context.Context, json.RawMessage) (*ext.ToolResult, error){}}
}

func (b *box) Name() string                { return "box" }
func (b *box) Origin() ext.Origin          { return ext.RemoteOrigin("box") }
func (b *box) Close(context.Context) error { return nil }

func (b *box) Tools(context.Context) ([]ext.ToolEntry, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []ext.ToolEntry
	for n := range b.tools {
		out = append(out, ext.ToolEntry{Name: n, Description: "tool " + n, InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: &ext.ToolAnnotations{ReadOnlyHint: n == "echo"}})
	}
	return out, nil
}

func (b *box) CallTool(ctx context.Context, c *ext.ToolCall) (*ext.ToolResult, error) {
	b.mu.Lock()
	fn := b.tools[c.Name]
	b.mu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("box: %s: %w", c.Name, ext.ErrNotFound)
	}
	return fn(ctx, c.Arguments)
}

func (b *box) ListCommands(context.Context) ([]ext.CommandEntry, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []ext.CommandEntry
	for _, n := range b.commands {
		out = append(out, ext.CommandEntry{Name: n, Description: "command " + n, ArgumentHint: "WHO", Source: "file"})
	}
	return out, nil
}

func (b *box) GetCommand(_ context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.commands, req.Name) {
		return nil, fmt.Errorf("box: /%s: %w", req.Name, ext.ErrNotFound)
	}
	return ext.UserPrompt(req.Name + ": " + strings.Join(req.Args, "|")), nil
}

func (b *box) addCommand(name string) {
	b.mu.Lock()
	b.commands = append(b.commands, name)
	b.mu.Unlock()
	b.Emit(ext.ChangeEvent{Capability: "box", Kind: ext.CommandsChanged})
}

// client is the editor's side: it records every session update, in order, and hands each to
// whoever waits for one.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	ch      chan sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest // the permission requests
	answer  sdk.PermissionOptionKind       // the option picked; "" is allow once
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	c.ch <- n
	return nil
}

// waitFor returns the first update from now on that ok accepts; the test fails after a long
// while without one (a hang, not a slowness).
func (c *client) waitFor(t *testing.T, what string, ok func(sdk.SessionUpdate) bool) sdk.SessionUpdate {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case n := <-c.ch:
			if ok(n.Update) {
				return n.Update
			}
		case <-timeout:
			t.Fatalf("no %s arrived", what)
		}
	}
}

// RequestPermission records the request and answers with the option of kind answer (allow
// once when answer is empty), or cancelled when the request offers none.
func (c *client) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	kind := c.answer
	c.mu.Unlock()
	if kind == "" {
		kind = sdk.PermissionOptionKindAllowOnce
	}
	for _, o := range p.Options {
		if o.Kind == kind {
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
		}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
}
func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("no fs")
}
func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("no fs")
}
func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("no terminal")
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no terminal")
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no terminal")
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no terminal")
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no terminal")
}

// fixture is a Server over a registry holding caps at pool scope, served over in-memory
// pipes to an SDK client connection.
type fixture struct {
	reg    *ext.Registry
	conn   *sdk.ClientSideConnection
	client *client
	// hangUp closes the client's end and waits for Serve to return.
	hangUp func()
	// served is closed when Serve has returned.
	served <-chan struct{}
}

func start(t *testing.T, m agent.Model, opts acp.Options, caps ...ext.Capability) *fixture {
	t.Helper()
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { reg.Close(context.Background()) })
	for _, c := range caps {
		if err := reg.Register(c, ext.LevelPool, ext.Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	opts.Model, opts.Registry = m, reg
	if opts.AgentName == "" {
		opts.AgentName = "main"
	}
	srv, err := acp.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(context.Background(), agentIn, agentOut)
	}()
	cl := &client{ch: make(chan sdk.SessionNotification, 1000)}
	f := &fixture{reg: reg, client: cl, conn: sdk.NewClientSideConnection(cl, clientOut, clientIn), served: served}
	var once sync.Once
	f.hangUp = func() {
		once.Do(func() {
			clientOut.Close()
			<-served
			agentOut.Close()
		})
	}
	t.Cleanup(f.hangUp)
	return f
}

func (f *fixture) initialize(t *testing.T) sdk.InitializeResponse {
	t.Helper()
	r, err := f.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fixture) newSession(t *testing.T, servers ...sdk.McpServer) sdk.SessionId {
	t.Helper()
	if servers == nil {
		servers = []sdk.McpServer{}
	}
	r, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: "/", McpServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	return r.SessionId
}

func (f *fixture) prompt(t *testing.T, id sdk.SessionId, text string) sdk.PromptResponse {
	t.Helper()
	r, err := f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return r
}
