package view_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/ext"
)

// fakeCap is a capability with a fixed set of tools, commands and skills, an origin, and
// change notification. Its lists can be changed and its health set.
type fakeCap struct {
	ext.Notifier
	name   string
	origin ext.Origin

	mu       sync.Mutex
	tools    []ext.ToolEntry
	cmds     []ext.CommandEntry
	skills   []ext.SkillEntry
	res      []ext.ResourceEntry
	tmpl     []ext.ResourceTemplateEntry // a template "x://p/{v}" matches every URI starting "x://p/"
	static   string
	dynamic  string
	health   ext.HealthState
	toolsErr error
	cmdsErr  error
	calls    []string
	lists    atomic.Int32
}

func newFake(name string, origin ext.OriginKind, tools ...string) *fakeCap {
	f := &fakeCap{name: name, origin: ext.Origin{Kind: origin}}
	if origin == ext.OriginRemote {
		f.origin = ext.RemoteOrigin(name)
	}
	for _, t := range tools {
		f.tools = append(f.tools, ext.ToolEntry{Name: t, InputSchema: []byte(`{"type":"object"}`)})
	}
	return f
}

func (f *fakeCap) Name() string                { return f.name }
func (f *fakeCap) Origin() ext.Origin          { return f.origin }
func (f *fakeCap) Close(context.Context) error { return nil }

func (f *fakeCap) Tools(context.Context) ([]ext.ToolEntry, error) {
	f.lists.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.toolsErr != nil {
		return nil, f.toolsErr
	}
	return append([]ext.ToolEntry(nil), f.tools...), nil
}

func (f *fakeCap) CallTool(_ context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.tools {
		if t.Name == call.Name {
			f.calls = append(f.calls, call.Name)
			return ext.TextResult(fmt.Sprintf("%s:%s:%s", f.name, call.Name, call.Arguments)), nil
		}
	}
	return nil, fmt.Errorf("%s: tool %q: %w", f.name, call.Name, ext.ErrNotFound)
}

func (f *fakeCap) Instructions(context.Context) (ext.Instructions, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ext.Instructions{Static: f.static, Dynamic: f.dynamic}, nil
}

func (f *fakeCap) ListCommands(context.Context) ([]ext.CommandEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cmdsErr != nil {
		return nil, f.cmdsErr
	}
	return append([]ext.CommandEntry(nil), f.cmds...), nil
}

func (f *fakeCap) GetCommand(_ context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.cmds {
		if c.Name == req.Name {
			return ext.UserPrompt(fmt.Sprintf("%s/%s %v", f.name, c.Name, req.Args)), nil
		}
	}
	return nil, fmt.Errorf("%s: command %q: %w", f.name, req.Name, ext.ErrNotFound)
}

func (f *fakeCap) ListSkills(context.Context) ([]ext.SkillEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ext.SkillEntry(nil), f.skills...), nil
}

func (f *fakeCap) ReadSkill(_ context.Context, uri string) ([]ext.ResourceContents, error) {
	return []ext.ResourceContents{{URI: uri, Text: f.name}}, nil
}

func (f *fakeCap) SkillExists(_ context.Context, uri string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.skills {
		if s.URI == uri {
			return true, nil
		}
	}
	return false, nil
}

func (f *fakeCap) Health() ext.Health {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.health == "" {
		return ext.Health{State: ext.HealthOK}
	}
	return ext.Health{State: f.health, Err: "fake failure"}
}

func (f *fakeCap) set(fn func(f *fakeCap)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

var (
	_ ext.ToolProvider     = (*fakeCap)(nil)
	_ ext.Instructor       = (*fakeCap)(nil)
	_ ext.CommandResource  = (*fakeCap)(nil)
	_ ext.SkillResource    = (*fakeCap)(nil)
	_ ext.HealthReporter   = (*fakeCap)(nil)
	_ ext.ChangeObservable = (*fakeCap)(nil)
	_ ext.Originator       = (*fakeCap)(nil)
)

func (f *fakeCap) ListResources(context.Context) ([]ext.ResourceEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ext.ResourceEntry(nil), f.res...), nil
}

func (f *fakeCap) ReadResource(_ context.Context, uri string) ([]ext.ResourceContents, error) {
	return []ext.ResourceContents{{URI: uri, Text: f.name}}, nil
}

func (f *fakeCap) ResourceExists(_ context.Context, uri string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.res {
		if r.URI == uri {
			return true, nil
		}
	}
	for _, t := range f.tmpl {
		if prefix, _, _ := strings.Cut(t.URITemplate, "{"); strings.HasPrefix(uri, prefix) {
			return true, nil
		}
	}
	return false, nil
}

func (f *fakeCap) ListResourceTemplates(context.Context) ([]ext.ResourceTemplateEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ext.ResourceTemplateEntry(nil), f.tmpl...), nil
}
