package mcpcap

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
)

func TestSubscribeEverythingStdio(t *testing.T) {
	bin := everythingBin(t)
	c := newPoolCap(t, newPool(t), "", Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"stdio"}}}})
	subscribeEverything(t, c)
}

func TestSubscribeEverythingStreamableHTTP(t *testing.T) {
	url := startEverythingHTTP(t, everythingBin(t))
	c := newPoolCap(t, newPool(t), "", Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Type: "streamable-http", URL: url}}})
	subscribeEverything(t, c)
}

// updates counts the resources_changed events for uri.
func (r *recorder) updates(uri string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.evs {
		if ev.Kind == ext.ResourcesChanged && ev.SourceURI == uri {
			n++
		}
	}
	return n
}

// rounds drives server-everything's toggle-subscriber-updates tool, which, when it turns
// updates on, sends resources/updated at once for every URI the session is subscribed to (and
// again every 5 s until turned off): turning it off and on again is a round of updates that
// needs no clock. Updates are left off at the end of the test.
type rounds struct {
	t  *testing.T
	c  *Cap
	on bool
}

func newRounds(t *testing.T, c *Cap) *rounds {
	r := &rounds{t: t, c: c}
	t.Cleanup(func() {
		if r.on {
			r.toggle()
		}
	})
	return r
}

func (r *rounds) toggle() {
	r.t.Helper()
	callText(r.t, r.c, "toggle-subscriber-updates", `{}`)
	r.on = !r.on
}

// round makes the server send an update for every subscribed URI.
func (r *rounds) round() {
	r.t.Helper()
	if r.on {
		r.toggle()
	}
	r.toggle()
}

// stopped checks that the server sends no more updates for gone while other is subscribed:
// two rounds, each an update for every subscribed URI delivered in order, and none for gone
// since the first.
func (r *rounds) stopped(rec *recorder, gone, other string) {
	r.t.Helper()
	n0 := rec.updates(other)
	r.round()
	testwait.For(r.t, "resources_changed for "+other, func() bool { return rec.updates(other) > n0 })
	n, nb := rec.updates(gone), rec.updates(other)
	r.round()
	testwait.For(r.t, "a second resources_changed for "+other, func() bool { return rec.updates(other) > nb })
	if got := rec.updates(gone); got != n {
		r.t.Errorf("%d resources_changed for %s after it was unsubscribed", got-n, gone)
	}
}

// twoResources returns two resource URIs of the server.
func twoResources(t *testing.T, ctx context.Context, c *Cap) (string, string) {
	t.Helper()
	res, err := c.ListResources(ctx)
	if err != nil || len(res) < 2 {
		t.Fatalf("resources %v, %v: want two", res, err)
	}
	return res[0].URI, res[1].URI
}

// subscribeEverything subscribes to server-everything's resources.
func subscribeEverything(t *testing.T, c *Cap) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rec recorder
	defer c.Observe(rec.add)()
	a, b := twoResources(t, ctx, c)
	r := newRounds(t, c)

	// Subscribed twice, unsubscribed once: still subscribed.
	for range 2 {
		if err := c.SubscribeResource(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	r.round()
	event := ext.ChangeEvent{Capability: "everything", Kind: ext.ResourcesChanged, SourceURI: a}
	testwait.For(t, "resources_changed for "+a, func() bool { return rec.has(event) })
	if err := c.UnsubscribeResource(ctx, a); err != nil {
		t.Fatal(err)
	}
	n := rec.updates(a)
	r.round()
	testwait.For(t, "resources_changed for "+a+" after one of two unsubscriptions", func() bool { return rec.updates(a) > n })

	// Unsubscribed for good.
	if err := c.UnsubscribeResource(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := c.SubscribeResource(ctx, b); err != nil {
		t.Fatal(err)
	}
	r.stopped(&rec, a, b)
	if err := c.UnsubscribeResource(ctx, b); err != nil {
		t.Fatal(err)
	}
}

// TestSubscribeSharedConnection: Caps with the same configuration and partition share one
// pooled connection, so one server session, which holds one subscription per URI. One Cap
// giving up its subscription (Unsubscribe, or Close) must not end another Cap's.
func TestSubscribeSharedConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := newPool(t)
	cfg := Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Command: everythingBin(t), Args: []string{"stdio"}}}}
	a, b := newPoolCap(t, p, "", cfg), newPoolCap(t, p, "", cfg)
	other := newPoolCap(t, p, "", cfg)
	var rec recorder
	defer b.Observe(rec.add)()
	u, v := twoResources(t, ctx, b)
	for _, c := range []*Cap{a, other} {
		if _, err := c.Tools(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := p.Stats(); st.Clients != 1 || st.Leases != 3 {
		t.Fatalf("pool stats %+v: want three Caps on one client", st)
	}
	r := newRounds(t, other)
	for _, c := range []*Cap{a, b} {
		if err := c.SubscribeResource(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.UnsubscribeResource(ctx, u); err != nil {
		t.Fatal(err)
	}
	n := rec.updates(u)
	r.round()
	testwait.For(t, "resources_changed for "+u+" on the second Cap after the first unsubscribed", func() bool { return rec.updates(u) > n })

	if err := a.SubscribeResource(ctx, v); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.SubscribeResource(ctx, v); err != nil {
		t.Fatal(err)
	}
	n = rec.updates(v)
	r.round()
	testwait.For(t, "resources_changed for "+v+" after another Cap subscribed to it closed", func() bool { return rec.updates(v) > n })

	// The last holder unsubscribing does end it.
	if err := b.UnsubscribeResource(ctx, u); err != nil {
		t.Fatal(err)
	}
	r.stopped(&rec, u, v)
}

// TestSubscribeSurvivesReconnect: a new server process knows nothing of the old one's
// subscriptions; the Cap makes them again on the new connection, where unsubscribing then
// ends them.
func TestSubscribeSurvivesReconnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := newPool(t)
	cfg := Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Command: everythingBin(t), Args: []string{"stdio"}}}}
	c := newPoolCap(t, p, "", cfg)
	var rec recorder
	defer c.Observe(rec.add)()
	u, v := twoResources(t, ctx, c)
	for _, uri := range []string{u, v} {
		if err := c.SubscribeResource(ctx, uri); err != nil {
			t.Fatal(err)
		}
	}
	pid := c.Status().PID
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "the Cap to notice its server died", func() bool { return c.Status().State != StateConnected })
	r := newRounds(t, c) // the new process starts with updates off
	n := rec.updates(u)
	r.round() // reconnects first
	if now := c.Status().PID; now == pid || now == 0 {
		t.Fatalf("pid %d after reconnect, killed %d", now, pid)
	}
	testwait.For(t, "resources_changed for "+u+" from the new process", func() bool { return rec.updates(u) > n })
	if err := c.UnsubscribeResource(ctx, u); err != nil {
		t.Fatal(err)
	}
	r.stopped(&rec, u, v)
}
