package ext

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
)

// testCap is a minimal Capability that counts its Close calls and can run a hook in Close.
type testCap struct {
	name    string
	level   ScopeLevel
	slot    Scope
	closes  atomic.Int32
	onClose func(ctx context.Context) error
	outer   Capability // the capability embedding this one, for tests that need it
}

var _ Capability = (*testCap)(nil)

func newCap(name string) *testCap { return &testCap{name: name} }

func (c *testCap) Name() string { return c.name }
func (c *testCap) Close(ctx context.Context) error {
	c.closes.Add(1)
	if c.onClose != nil {
		return c.onClose(ctx)
	}
	return nil
}

// skillCap is a SkillResource holding a fixed set of URIs. Reading a URI it was not first
// asked about with a positive SkillExists fails the test.
type skillCap struct {
	testCap
	t      *testing.T
	have   map[string]string
	mu     sync.Mutex
	oked   map[string]bool
	exists atomic.Int32
	reads  atomic.Int32
}

var _ SkillResource = (*skillCap)(nil)

func newSkillCap(t *testing.T, name string, uris ...string) *skillCap {
	c := &skillCap{testCap: testCap{name: name}, t: t, have: map[string]string{}, oked: map[string]bool{}}
	for _, u := range uris {
		c.have[u] = name + ":" + u
	}
	return c
}

func (c *skillCap) ListSkills(context.Context) ([]SkillEntry, error) { return nil, nil }
func (c *skillCap) SkillExists(_ context.Context, uri string) (bool, error) {
	c.exists.Add(1)
	_, ok := c.have[uri]
	c.mu.Lock()
	c.oked[uri] = ok
	c.mu.Unlock()
	return ok, nil
}
func (c *skillCap) ReadSkill(_ context.Context, uri string) ([]ResourceContents, error) {
	c.reads.Add(1)
	c.mu.Lock()
	ok := c.oked[uri]
	c.mu.Unlock()
	if !ok {
		c.t.Errorf("capability %q: ReadSkill(%q) without a positive SkillExists", c.name, uri)
	}
	text, found := c.have[uri]
	if !found {
		return nil, fmt.Errorf("%s: %w", uri, ErrNotFound)
	}
	return []ResourceContents{{URI: uri, Text: text}}, nil
}

// resCap is a ResourceSource (and with tools an MCPResource) with the same exists-first check.
type resCap struct {
	testCap
	t    *testing.T
	have map[string]string
	mu   sync.Mutex
	oked map[string]bool
}

var _ ResourceSource = (*resCap)(nil)

func newResCap(t *testing.T, name string, uris ...string) *resCap {
	c := &resCap{testCap: testCap{name: name}, t: t, have: map[string]string{}, oked: map[string]bool{}}
	for _, u := range uris {
		c.have[u] = name + ":" + u
	}
	return c
}

func (c *resCap) ListResources(context.Context) ([]ResourceEntry, error) { return nil, nil }
func (c *resCap) ResourceExists(_ context.Context, uri string) (bool, error) {
	_, ok := c.have[uri]
	c.mu.Lock()
	c.oked[uri] = ok
	c.mu.Unlock()
	return ok, nil
}
func (c *resCap) ReadResource(_ context.Context, uri string) ([]ResourceContents, error) {
	c.mu.Lock()
	ok := c.oked[uri]
	c.mu.Unlock()
	if !ok {
		c.t.Errorf("capability %q: ReadResource(%q) without a positive ResourceExists", c.name, uri)
	}
	text, found := c.have[uri]
	if !found {
		return nil, fmt.Errorf("%s: %w", uri, ErrNotFound)
	}
	return []ResourceContents{{URI: uri, Text: text}}, nil
}

// mcpCap is an MCPResource that also serves skills, as an MCP server with skill:// resources.
type mcpCap struct {
	resCap
	skills *skillCap
}

var (
	_ MCPResource   = (*mcpCap)(nil)
	_ SkillResource = (*mcpCap)(nil)
)

func newMCPCap(t *testing.T, name string, resources []string, skills ...string) *mcpCap {
	return &mcpCap{resCap: *newResCap(t, name, resources...), skills: newSkillCap(t, name, skills...)}
}

func (c *mcpCap) Origin() Origin                             { return RemoteOrigin(c.name) }
func (c *mcpCap) Tools(context.Context) ([]ToolEntry, error) { return nil, nil }
func (c *mcpCap) CallTool(context.Context, *ToolCall) (*ToolResult, error) {
	return nil, ErrNotFound
}
func (c *mcpCap) ListSkills(ctx context.Context) ([]SkillEntry, error) {
	return c.skills.ListSkills(ctx)
}
func (c *mcpCap) SkillExists(ctx context.Context, uri string) (bool, error) {
	return c.skills.SkillExists(ctx, uri)
}
func (c *mcpCap) ReadSkill(ctx context.Context, uri string) ([]ResourceContents, error) {
	return c.skills.ReadSkill(ctx, uri)
}

// obsCap is an observable capability.
type obsCap struct {
	testCap
	Notifier
}

var _ ChangeObservable = (*obsCap)(nil)

func newObsCap(name string) *obsCap { return &obsCap{testCap: testCap{name: name}} }

// compCap is a Composite capability.
type compCap struct {
	testCap
	mu       sync.Mutex
	children []Capability
}

var _ Composite = (*compCap)(nil)

func newCompCap(name string, children ...Capability) *compCap {
	return &compCap{testCap: testCap{name: name}, children: children}
}

func (c *compCap) Children() []Capability {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Capability(nil), c.children...)
}

// greedySkills claims every skill URI; the registry must stop traversal before asking it.
type greedySkills struct {
	testCap
	calls atomic.Int32
}

func (g *greedySkills) ListSkills(context.Context) ([]SkillEntry, error) { return nil, nil }
func (g *greedySkills) SkillExists(context.Context, string) (bool, error) {
	g.calls.Add(1)
	return true, nil
}
func (g *greedySkills) ReadSkill(_ context.Context, uri string) ([]ResourceContents, error) {
	g.calls.Add(1)
	return []ResourceContents{{URI: uri, Text: "anything"}}, nil
}

// diskSkills serves skill://<name>/<path> from root/<name>/<path> through OpenConfined, as a
// real skill source does.
type diskSkills struct {
	testCap
	root string
}

func (d *diskSkills) ListSkills(context.Context) ([]SkillEntry, error) { return nil, nil }
func (d *diskSkills) split(uri string) (string, string, error) {
	u, err := ParseURI(uri)
	if err != nil {
		return "", "", err
	}
	return u.Authority, u.Path, nil
}
func (d *diskSkills) SkillExists(_ context.Context, uri string) (bool, error) {
	name, _, err := d.split(uri)
	if err != nil {
		return false, err
	}
	_, err = Confine(d.root, name)
	return err == nil, nil
}
func (d *diskSkills) ReadSkill(_ context.Context, uri string) ([]ResourceContents, error) {
	name, path, err := d.split(uri)
	if err != nil {
		return nil, err
	}
	skillRoot, err := Confine(d.root, name)
	if err != nil {
		return nil, err
	}
	f, err := OpenConfined(skillRoot, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return []ResourceContents{{URI: uri, Text: string(b)}}, nil
}
