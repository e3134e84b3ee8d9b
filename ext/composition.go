package ext

import (
	"fmt"
	"slices"
)

// edge is one composition edge, parent → child.
type edge struct{ parent, child Capability }

// addedChild is what one AddChild recorded under its parent: the child and the members it took
// a ref on (the child and the child's own composition), released by RemoveChild or with the
// parent.
type addedChild struct {
	child   Capability
	members []Capability
}

// collectEdges walks root's Composite children recursively and returns the edges found. A
// capability that is its own descendant within the walk is ErrCircularComposition; a nil or
// non-comparable child is an error naming its parent.
func collectEdges(root Capability) ([]edge, error) {
	var edges []edge
	done := make(map[Capability]bool) // fully walked
	onPath := make(map[Capability]bool)
	var walk func(c Capability) error
	walk = func(c Capability) error {
		comp, ok := c.(Composite)
		if !ok || done[c] {
			return nil
		}
		onPath[c] = true
		for i, ch := range comp.Children() {
			if err := checkCapability(ch, fmt.Sprintf("child %d of %q", i, c.Name())); err != nil {
				return err
			}
			if onPath[ch] {
				return fmt.Errorf("%q is its own ancestor through %q: %w", ch.Name(), c.Name(), ErrCircularComposition)
			}
			edges = append(edges, edge{c, ch})
			if err := walk(ch); err != nil {
				return err
			}
		}
		delete(onPath, c)
		done[c] = true
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return edges, nil
}

// reachableLocked reports whether target can be reached from from, over the registry's edges
// and extra. It is a full DFS: a node reached through several parents is still followed, so a
// shared child cannot hide a cycle.
func (r *Registry) reachableLocked(from, target Capability, extra map[Capability][]Capability) bool {
	seen := make(map[Capability]bool)
	stack := []Capability{from}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == target {
			return true
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		stack = append(stack, r.graph[c]...)
		stack = append(stack, extra[c]...)
	}
	return false
}

// checkEdgesLocked rejects edges that would close a cycle with the recorded ones or each other.
func (r *Registry) checkEdgesLocked(edges []edge) error {
	if len(edges) == 0 {
		return nil
	}
	extra := make(map[Capability][]Capability)
	for _, e := range edges {
		if e.parent == e.child || r.reachableLocked(e.child, e.parent, extra) {
			return fmt.Errorf("edge %q → %q closes a cycle: %w", e.parent.Name(), e.child.Name(), ErrCircularComposition)
		}
		extra[e.parent] = append(extra[e.parent], e.child)
	}
	return nil
}

// addEdgesLocked records edges and takes a ref on every member other than root, returning the
// members so the holder can release them.
func (r *Registry) addEdgesLocked(root Capability, edges []edge) []Capability {
	var members []Capability
	seen := map[Capability]bool{root: true}
	for _, e := range edges {
		if !containsCap(r.graph[e.parent], e.child) {
			r.graph[e.parent] = append(r.graph[e.parent], e.child)
			r.parents[e.child] = append(r.parents[e.child], e.parent)
		}
		for _, m := range [2]Capability{e.parent, e.child} {
			if !seen[m] {
				seen[m] = true
				members = append(members, m)
				r.refs[m]++
			}
		}
	}
	return members
}

func containsCap(list []Capability, c Capability) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}

func removeCap(list []Capability, c Capability) []Capability {
	for i, x := range list {
		if x == c {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// releaseLocked drops one ref on c; at zero, c's outgoing edges and the members added under it
// by AddChild are released.
func (r *Registry) releaseLocked(c Capability) {
	n := r.refs[c] - 1
	if n > 0 {
		r.refs[c] = n
		return
	}
	delete(r.refs, c)
	for _, ch := range r.graph[c] {
		if ps := removeCap(r.parents[ch], c); len(ps) == 0 {
			delete(r.parents, ch)
		} else {
			r.parents[ch] = ps
		}
	}
	delete(r.graph, c)
	added := r.added[c]
	delete(r.added, c)
	for _, a := range added {
		for _, m := range a.members {
			r.releaseLocked(m)
		}
	}
}

// depthThroughLocked returns the number of capabilities on the longest composition chain
// through c, c counted once.
func (r *Registry) depthThroughLocked(c Capability) int {
	return longest(c, r.parents, map[Capability]int{}) + longest(c, r.graph, map[Capability]int{}) - 1
}

// longest returns the number of nodes on the longest path from c along adj (a DAG).
func longest(c Capability, adj map[Capability][]Capability, memo map[Capability]int) int {
	if d, ok := memo[c]; ok {
		return d
	}
	memo[c] = 1 // provisional; the graph is acyclic, so only a repeat visit sees it
	best := 0
	for _, n := range adj[c] {
		best = max(best, longest(n, adj, memo))
	}
	memo[c] = best + 1
	return best + 1
}

// AddChild records a composition edge parent → child found after parent was registered (a
// skill that gained an MCP server, say), with child's own Composite children. The parent must
// be registered (ErrNotFound otherwise); an edge that would close a cycle is
// ErrCircularComposition and records nothing; a chain deeper than MaxCompositionDepth logs a
// warning. The edge is forgotten when the parent's last registration goes. Adding an existing
// edge again is a no-op.
func (r *Registry) AddChild(parent, child Capability) error {
	if err := checkCapability(parent, "add child: parent"); err != nil {
		return err
	}
	if err := checkCapability(child, fmt.Sprintf("add child to %q", parent.Name())); err != nil {
		return err
	}
	sub, err := collectEdges(child)
	if err != nil {
		return fmt.Errorf("add child %q to %q: %w", child.Name(), parent.Name(), err)
	}
	edges := append([]edge{{parent, child}}, sub...)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fmt.Errorf("add child %q to %q: registry: %w", child.Name(), parent.Name(), ErrClosed)
	}
	if r.refs[parent] == 0 {
		r.mu.Unlock()
		return fmt.Errorf("add child %q to %q: parent is not registered: %w", child.Name(), parent.Name(), ErrNotFound)
	}
	if containsCap(r.graph[parent], child) {
		r.mu.Unlock()
		return nil
	}
	if err := r.checkEdgesLocked(edges); err != nil {
		r.mu.Unlock()
		return fmt.Errorf("add child %q to %q: %w", child.Name(), parent.Name(), err)
	}
	members := r.addEdgesLocked(parent, edges)
	r.added[parent] = append(r.added[parent], addedChild{child: child, members: members})
	depth := r.depthThroughLocked(parent)
	r.mu.Unlock()
	if depth > r.maxDepth {
		r.log.Warn("ext: composition deeper than max_composition_depth",
			"parent", parent.Name(), "child", child.Name(), "depth", depth, "max", r.maxDepth)
	}
	return nil
}

// RemoveChild forgets the edge parent → child that AddChild recorded, with the refs it took, so
// a parent that dropped a child (a skill's MCP server replaced or removed on reload) does not
// keep it in the composition graph for the rest of its registration. It closes nothing. An edge
// AddChild did not record (none, already removed, or found through Composite.Children at
// Register) is ErrNotFound; after Close it is ErrClosed.
func (r *Registry) RemoveChild(parent, child Capability) error {
	if err := checkCapability(parent, "remove child: parent"); err != nil {
		return err
	}
	if err := checkCapability(child, fmt.Sprintf("remove child from %q", parent.Name())); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("remove child %q from %q: registry: %w", child.Name(), parent.Name(), ErrClosed)
	}
	list := r.added[parent]
	i := slices.IndexFunc(list, func(a addedChild) bool { return a.child == child })
	if i < 0 {
		return fmt.Errorf("remove child %q from %q: no such added child: %w", child.Name(), parent.Name(), ErrNotFound)
	}
	rec := list[i]
	if list = append(list[:i:i], list[i+1:]...); len(list) == 0 {
		delete(r.added, parent)
	} else {
		r.added[parent] = list
	}
	if gs := removeCap(r.graph[parent], child); len(gs) == 0 {
		delete(r.graph, parent)
	} else {
		r.graph[parent] = gs
	}
	if ps := removeCap(r.parents[child], parent); len(ps) == 0 {
		delete(r.parents, child)
	} else {
		r.parents[child] = ps
	}
	for _, m := range rec.members {
		r.releaseLocked(m)
	}
	return nil
}
