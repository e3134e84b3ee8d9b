package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// script is a Model that returns predetermined steps: step i of a run is steps[i](req). It
// records every request it was given.
type script struct {
	mu    sync.Mutex
	steps []func(req *agent.Request) (*agent.Response, error)
	reqs  []*agent.Request
	n     int
}

func newScript(steps ...func(req *agent.Request) (*agent.Response, error)) *script {
	return &script{steps: steps}
}

func (s *script) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	s.mu.Lock()
	i := s.n
	s.n++
	cp := *req
	cp.Messages = append([]agent.Message(nil), req.Messages...)
	s.reqs = append(s.reqs, &cp)
	s.mu.Unlock()
	if i >= len(s.steps) {
		return nil, fmt.Errorf("script: no step %d", i)
	}
	return s.steps[i](req)
}

func (s *script) requests() []*agent.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*agent.Request(nil), s.reqs...)
}

// call returns a step that asks for the given calls ("name", `args`, "name", `args`, …).
func call(pairs ...string) func(*agent.Request) (*agent.Response, error) {
	return func(*agent.Request) (*agent.Response, error) {
		r := &agent.Response{}
		for i := 0; i+1 < len(pairs); i += 2 {
			r.ToolCalls = append(r.ToolCalls, agent.ToolCall{Name: pairs[i], Arguments: json.RawMessage(pairs[i+1])})
		}
		return r, nil
	}
}

// answer returns a step that answers text without tools.
func answer(text string) func(*agent.Request) (*agent.Response, error) {
	return func(*agent.Request) (*agent.Response, error) { return &agent.Response{Text: text}, nil }
}

// toolNames returns the names of the tools a request offered.
func toolNames(req *agent.Request) map[string]bool {
	m := map[string]bool{}
	for _, t := range req.Tools {
		m[t.Name] = true
	}
	return m
}

// fake is an in-process capability: tools served by functions, resources, instructions and
// change events.
type fake struct {
	ext.Notifier
	name   string
	origin ext.Origin

	mu     sync.Mutex
	tools  map[string]func(ctx context.Context, args json.RawMessage) (*ext.ToolResult, error)
	res    map[string]ext.ResourceContents
	static string
	closed bool
}

func newFake(name string) *fake {
	return &fake{name: name, origin: ext.Origin{Kind: ext.OriginLocal},
		tools: map[string]func(context.Context, json.RawMessage) (*ext.ToolResult, error){},
		res:   map[string]ext.ResourceContents{}}
}

func (f *fake) Name() string       { return f.name }
func (f *fake) Origin() ext.Origin { return f.origin }
func (f *fake) Close(context.Context) error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return nil
}

func (f *fake) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

func (f *fake) add(name string, fn func(ctx context.Context, args json.RawMessage) (*ext.ToolResult, error)) *fake {
	f.mu.Lock()
	f.tools[name] = fn
	f.mu.Unlock()
	return f
}

func (f *fake) Tools(context.Context) ([]ext.ToolEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ext.ToolEntry
	for n := range f.tools {
		out = append(out, ext.ToolEntry{Name: n, Description: "tool " + n, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return out, nil
}

func (f *fake) CallTool(ctx context.Context, c *ext.ToolCall) (*ext.ToolResult, error) {
	f.mu.Lock()
	fn := f.tools[c.Name]
	f.mu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("%s: %s: %w", f.name, c.Name, ext.ErrNotFound)
	}
	return fn(ctx, c.Arguments)
}

func (f *fake) Instructions(context.Context) (ext.Instructions, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ext.Instructions{Static: f.static}, nil
}

func (f *fake) ListResources(context.Context) ([]ext.ResourceEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ext.ResourceEntry
	for u, r := range f.res {
		out = append(out, ext.ResourceEntry{URI: u, Name: "n", MIMEType: r.MIMEType})
	}
	slices.SortFunc(out, func(a, b ext.ResourceEntry) int { return strings.Compare(a.URI, b.URI) })
	return out, nil
}

func (f *fake) ReadResource(_ context.Context, uri string) ([]ext.ResourceContents, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.res[uri]
	if !ok {
		return nil, fmt.Errorf("%s: %w", uri, ext.ErrNotFound)
	}
	return []ext.ResourceContents{r}, nil
}

func (f *fake) ResourceExists(_ context.Context, uri string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.res[uri]
	return ok, nil
}

func echo(_ context.Context, args json.RawMessage) (*ext.ToolResult, error) {
	return ext.TextResult(string(args)), nil
}

// setup registers caps at pool scope of a new registry and returns an agent over it.
func setup(t *testing.T, m agent.Model, opts *agent.Options, caps ...ext.Capability) (*agent.Agent, *ext.Registry) {
	t.Helper()
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { reg.Close(context.Background()) })
	for _, c := range caps {
		var ro []ext.RegisterOption
		if _, ok := c.(ext.ResourceSource); ok {
			ro = append(ro, ext.WithSchemes("mem"))
		}
		if err := reg.Register(c, ext.LevelPool, ext.Scope{}, ro...); err != nil {
			t.Fatal(err)
		}
	}
	var o agent.Options
	if opts != nil {
		o = *opts
	}
	o.Model, o.Registry = m, reg
	if o.Scope == (ext.Scope{}) {
		o.Scope = ext.Scope{SessionID: "s1", AgentName: "main"}
	}
	a, err := agent.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return a, reg
}
