package ext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func loggedRegistry(t *testing.T, opts RegistryOptions) (*Registry, *syncBuffer) {
	t.Helper()
	var buf syncBuffer
	opts.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	r := NewRegistry(&opts)
	t.Cleanup(func() { r.Close(context.Background()) })
	return r, &buf
}

func TestCompositionSharedChildDoesNotHideCycle(t *testing.T) {
	r := newTestRegistry(t)
	a, b, c := newCompCap("A"), newCompCap("B"), newCompCap("C")
	for _, x := range []Capability{a, b, c} {
		if err := r.Register(x, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.AddChild(a, b); err != nil {
		t.Fatal(err)
	}
	if err := r.AddChild(c, b); err != nil {
		t.Fatal(err)
	}
	err := r.AddChild(b, a)
	if !errors.Is(err, ErrCircularComposition) {
		t.Fatalf("B→A after A→B, C→B: got %v, want ErrCircularComposition", err)
	}
	if !strings.Contains(err.Error(), `"B"`) || !strings.Contains(err.Error(), `"A"`) {
		t.Fatalf("error does not name the capabilities: %v", err)
	}
	// Rejected edges are not recorded: B→C would still be a cycle only if B→A were kept.
	if err := r.AddChild(b, newCap("leaf")); err != nil {
		t.Fatal(err)
	}
	if err := r.AddChild(a, a); !errors.Is(err, ErrCircularComposition) {
		t.Fatalf("A→A: %v", err)
	}
	if err := r.AddChild(a, b); err != nil {
		t.Fatalf("adding an existing edge again: %v", err)
	}
}

func TestCompositionCycleAtRegister(t *testing.T) {
	r := newTestRegistry(t)
	a := newCompCap("A")
	b := newCompCap("B", a)
	a.children = []Capability{b} // A → B → A, found by walking Children
	err := r.Register(a, LevelPool, Scope{})
	if !errors.Is(err, ErrCircularComposition) {
		t.Fatalf("Register of a self-containing tree: %v", err)
	}
	if len(r.Visible(Scope{})) != 0 {
		t.Fatal("a rejected capability is visible")
	}

	// A cycle closed through edges already recorded: P → Q registered, then Q's children
	// include P.
	p, q := newCompCap("P"), newCompCap("Q")
	p.children = []Capability{q}
	if err := r.Register(p, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	q2 := newCompCap("Q2", p)
	if err := r.Register(q2, LevelPool, Scope{}); err != nil {
		t.Fatalf("Q2 → P is not a cycle: %v", err)
	}
	if err := r.AddChild(q, q2); !errors.Is(err, ErrCircularComposition) {
		t.Fatalf("Q → Q2 → P → Q: %v", err)
	}
}

func TestCompositionBadChildren(t *testing.T) {
	r := newTestRegistry(t)
	var nilChild *testCap
	if err := r.Register(newCompCap("x", nilChild), LevelPool, Scope{}); err == nil || !strings.Contains(err.Error(), `child 0 of "x"`) {
		t.Fatalf("nil child: %v", err)
	}
	if err := r.Register(newCompCap("y", valueCap{}), LevelPool, Scope{}); err == nil || !strings.Contains(err.Error(), "not comparable") {
		t.Fatalf("non-comparable child: %v", err)
	}
	if err := r.AddChild(newCap("unregistered"), newCap("c")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("AddChild to an unregistered parent: %v", err)
	}
}

func TestCompositionDepthWarns(t *testing.T) {
	r, logs := loggedRegistry(t, RegistryOptions{})
	// skill(1) → MCP(2) → MCP(3): at the limit, no warning.
	m3 := newCompCap("m3")
	m2 := newCompCap("m2", m3)
	skill := newCompCap("skill", m2)
	if err := r.Register(skill, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "composition deeper") {
		t.Fatalf("depth 3 warned: %s", logs)
	}
	// One more level, added later: depth 4 warns and is recorded.
	if err := r.AddChild(m3, newCap("m4")); err != nil {
		t.Fatalf("depth over the limit must still register: %v", err)
	}
	if !strings.Contains(logs.String(), "composition deeper") || !strings.Contains(logs.String(), "depth=4") {
		t.Fatalf("depth 4 did not warn: %s", logs)
	}
	// A deep tree at Register warns too and registers.
	d4 := newCompCap("d1", newCompCap("d2", newCompCap("d3", newCap("d4"))))
	if err := r.Register(d4, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "capability=d1") {
		t.Fatalf("deep Register did not warn: %s", logs)
	}
	if len(r.Visible(Scope{SessionID: "s"})) != 2 {
		t.Fatal("deep capability not registered")
	}
}

func TestCompositionEdgesForgottenWithParent(t *testing.T) {
	r := newTestRegistry(t)
	a, b := newCompCap("A"), newCompCap("B")
	if err := r.Register(a, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(b, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddChild(a, b); err != nil {
		t.Fatal(err)
	}
	if err := r.CloseScope(context.Background(), Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	// A is gone with its edge, so B → A no longer closes a cycle (A is registered anew).
	if err := r.Register(a, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddChild(b, a); err != nil {
		t.Fatalf("edge of a closed parent still recorded: %v", err)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.graph) != 1 || len(r.parents) != 1 {
		t.Fatalf("graph holds %d parents / %d children, want 1 / 1", len(r.graph), len(r.parents))
	}
}

// TestRemoveChildForgetsEdge: a child that its parent dropped (a skill's MCP server replaced on
// hot reload) can be forgotten without unregistering the parent, so the registry does not keep
// every child ever built.
func TestRemoveChildForgetsEdge(t *testing.T) {
	r := newTestRegistry(t)
	parent := newCompCap("skills")
	if err := r.Register(parent, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	grandchild := newCap("gc")
	keep := newCap("keep")
	if err := r.AddChild(parent, keep); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		kid := newCompCap(fmt.Sprint("kid", i), grandchild)
		if err := r.AddChild(parent, kid); err != nil {
			t.Fatal(err)
		}
		if err := r.RemoveChild(parent, kid); err != nil {
			t.Fatalf("RemoveChild %d: %v", i, err)
		}
		if err := r.RemoveChild(parent, kid); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second RemoveChild: %v, want ErrNotFound", err)
		}
	}
	r.mu.RLock()
	graph, refs, added := len(r.graph[parent]), len(r.refs), len(r.added[parent])
	_, gcRef := r.refs[grandchild]
	r.mu.RUnlock()
	// parent → keep is all that is left: refs on parent and keep only.
	if graph != 1 || refs != 2 || added != 1 || gcRef {
		t.Fatalf("after removing 50 children: %d edges from parent, %d refs, %d added records, grandchild ref %v; want 1, 2, 1, false",
			graph, refs, added, gcRef)
	}
	// The removed edge no longer counts for cycles: kid → parent is fine once parent → kid is gone.
	kid := newCompCap("kid")
	if err := r.AddChild(parent, kid); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveChild(parent, kid); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(kid, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddChild(kid, parent); err != nil {
		t.Fatalf("removed edge still closes a cycle: %v", err)
	}
	if err := r.RemoveChild(nil, kid); err == nil {
		t.Fatal("RemoveChild(nil parent) accepted")
	}
}
