package host

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
)

// refusable is a capability the registry refuses when refuse is set (its Observe panics, which
// Register returns as an error). onClose runs when it is closed.
type refusable struct {
	name        string
	refuse      bool
	refuseAgain bool // refused from its second registration on
	observed    atomic.Int32
	closed      atomic.Int32
	onClose     func(*refusable)
}

func (c *refusable) Name() string { return c.name }
func (c *refusable) Close(context.Context) error {
	if c.closed.Add(1) == 1 && c.onClose != nil {
		c.onClose(c)
	}
	return nil
}
func (c *refusable) Observe(func(ext.ChangeEvent)) func() {
	if n := c.observed.Add(1); c.refuse || c.refuseAgain && n > 1 {
		panic("refused")
	}
	return func() {}
}

// reloadSame reloads h with the config it was built from ("skills: {dirs: []}").
func reloadSame(t *testing.T, h *Host) ReloadResult {
	t.Helper()
	cfg, err := config.Parse("x.yaml", []byte("skills: {dirs: []}\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Reload(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRefusedRegistrationNeverPublished: when the registry refuses a changed entry's new
// capability, the old one goes back, and the new one is closed only once no State that
// Current returns holds it.
func TestRefusedRegistrationNeverPublished(t *testing.T) {
	version := "1"
	key := Key{Level: ext.LevelPool, Name: "fake-p"}
	var h *Host
	var made []*refusable
	var closedWhilePublished atomic.Bool
	withKind(t, kind{"fake", func(pl *planner) error {
		v := version
		pl.declare("fake.p", v)
		pl.add(&Entry{Key: key, Owner: "fake.p", Source: "fake.p", Decl: v,
			start: func(context.Context, *batch) (ext.Capability, error) {
				c := &refusable{name: key.Name, refuse: v == "2", onClose: func(c *refusable) {
					if h.Current().caps[key] == c {
						closedWhilePublished.Store(true)
					}
				}}
				made = append(made, c)
				return c, nil
			}})
		return nil
	}})
	h = buildHost(t, "x.yaml", "skills: {dirs: []}\n", Options{})

	version = "2"
	res := reloadSame(t, h)
	if len(res.Failed) != 1 || len(made) != 2 {
		t.Fatalf("reload with a refused capability: %+v (%d made)", res, len(made))
	}
	if closedWhilePublished.Load() {
		t.Error("the refused capability was closed while the published State held it")
	}
	if made[1].closed.Load() != 1 || made[0].closed.Load() != 0 {
		t.Errorf("closed: refused one %d times, old one %d times; want 1 and 0", made[1].closed.Load(), made[0].closed.Load())
	}
	if got := h.Current().caps[key]; got != made[0] {
		t.Errorf("state holds %p, want the old capability %p", got, made[0])
	}
}

// TestRefusedRegistrationKeepsDependents: when the registry refuses a changed entry's new
// capability, the entries made from it (their After) keep the capabilities they had, made from
// the old one that goes back, rather than running on a closed one.
func TestRefusedRegistrationKeepsDependents(t *testing.T) {
	version := "1"
	pKey := Key{Level: ext.LevelPool, Name: "fake-p"}
	dKey := Key{Level: ext.LevelPool, Name: "fake-d"}
	var ps, ds []*refusable
	parentOf := map[*refusable]*refusable{} // each fake-d made, the fake-p it was made from
	withKind(t, kind{"fake", func(pl *planner) error {
		v := version
		pl.declare("fake.p", v)
		pl.add(&Entry{Key: pKey, Owner: "fake.p", Source: "fake.p", Decl: v,
			start: func(context.Context, *batch) (ext.Capability, error) {
				c := &refusable{name: pKey.Name, refuse: v == "2"}
				ps = append(ps, c)
				return c, nil
			}})
		pl.declare("fake.d", "1")
		pl.add(&Entry{Key: dKey, Owner: "fake.d", Source: "fake.d", Decl: "1", After: []Key{pKey},
			start: func(_ context.Context, b *batch) (ext.Capability, error) {
				c := &refusable{name: dKey.Name}
				parentOf[c], _ = b.cap(pKey).(*refusable)
				ds = append(ds, c)
				return c, nil
			}})
		return nil
	}})
	h := buildHost(t, "x.yaml", "skills: {dirs: []}\n", Options{})

	version = "2"
	res := reloadSame(t, h)
	if len(res.Failed) == 0 || len(ps) != 2 {
		t.Fatalf("reload with a refused capability: %+v (%d made)", res, len(ps))
	}
	var registered *refusable
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if c.Name() == dKey.Name {
			registered, _ = c.(*refusable)
		}
	}
	if registered != ds[0] || ds[0].closed.Load() != 0 {
		t.Errorf("fake-d: the one it had was replaced or closed (registered %p, had %p, closed %d times)", registered, ds[0], ds[0].closed.Load())
	}
	if registered != nil && parentOf[registered].closed.Load() != 0 {
		t.Error("fake-d registered runs on a closed fake-p")
	}
	if h.Current().caps[dKey] != registered {
		t.Error("the state does not hold the registered fake-d")
	}
	for _, d := range ds[1:] {
		if d.closed.Load() != 1 {
			t.Errorf("a fake-d made from the refused fake-p was closed %d times, want 1", d.closed.Load())
		}
	}
}

// TestRefusedOldCapabilityClosed: when the registry refuses a changed entry's new capability
// and then the old one too, the old one, registered nowhere any more, is closed rather than
// left running, and the state holds neither.
func TestRefusedOldCapabilityClosed(t *testing.T) {
	version := "1"
	key := Key{Level: ext.LevelPool, Name: "fake-p"}
	var made []*refusable
	withKind(t, kind{"fake", func(pl *planner) error {
		v := version
		pl.declare("fake.p", v)
		pl.add(&Entry{Key: key, Owner: "fake.p", Source: "fake.p", Decl: v,
			start: func(context.Context, *batch) (ext.Capability, error) {
				c := &refusable{name: key.Name, refuse: v == "2", refuseAgain: true}
				made = append(made, c)
				return c, nil
			}})
		return nil
	}})
	h := buildHost(t, "x.yaml", "skills: {dirs: []}\n", Options{})

	version = "2"
	res := reloadSame(t, h)
	if len(res.Failed) == 0 || len(made) != 2 {
		t.Fatalf("reload with a refused capability: %+v (%d made)", res, len(made))
	}
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if c.Name() == key.Name {
			t.Fatalf("%s registered after both were refused", key.Name)
		}
	}
	if made[0].closed.Load() != 1 || made[1].closed.Load() != 1 {
		t.Errorf("closed: old one %d times, refused one %d times; want each once", made[0].closed.Load(), made[1].closed.Load())
	}
	if c, ok := h.Current().caps[key]; ok {
		t.Errorf("the state holds %v for %s", c, key.Name)
	}
}
