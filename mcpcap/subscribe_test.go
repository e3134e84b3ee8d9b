package mcpcap

import (
	"context"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
)

func TestSubscribeEverythingStdio(t *testing.T) {
	bin := everythingBin(t)
	c := newPoolCap(t, newPool(t), "", Config{Name: "everything", Server: connpool.ServerConfig{Command: bin, Args: []string{"stdio"}}})
	subscribeEverything(t, c)
}

func TestSubscribeEverythingStreamableHTTP(t *testing.T) {
	url := startEverythingHTTP(t, everythingBin(t))
	c := newPoolCap(t, newPool(t), "", Config{Name: "everything", Server: connpool.ServerConfig{Type: "streamable-http", URL: url}})
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

// subscribeEverything subscribes to server-everything's resources. Its toggle-subscriber-updates
// tool, when it turns updates on, sends resources/updated at once for every URI the session is
// subscribed to (and again every 5 s until turned off), so turning it off and on again is a
// round of updates that needs no clock.
func subscribeEverything(t *testing.T, c *Cap) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rec recorder
	defer c.Observe(rec.add)()
	res, err := c.ListResources(ctx)
	if err != nil || len(res) < 2 {
		t.Fatalf("resources %v, %v: want two", res, err)
	}
	a, b := res[0].URI, res[1].URI
	on := false
	toggle := func() {
		t.Helper()
		callText(t, c, "toggle-subscriber-updates", `{}`)
		on = !on
	}
	round := func() { // a round of updates for every subscribed URI
		t.Helper()
		if on {
			toggle()
		}
		toggle()
	}
	defer func() {
		if on {
			toggle()
		}
	}()
	event := ext.ChangeEvent{Capability: "everything", Kind: ext.ResourcesChanged, SourceURI: a}

	// Subscribed twice, unsubscribed once: still subscribed.
	for range 2 {
		if err := c.SubscribeResource(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	round()
	waitFor(t, "resources_changed for "+a, func() bool { return rec.has(event) })
	if err := c.UnsubscribeResource(ctx, a); err != nil {
		t.Fatal(err)
	}
	n := rec.updates(a)
	round()
	waitFor(t, "resources_changed for "+a+" after one of two unsubscriptions", func() bool { return rec.updates(a) > n })

	// Unsubscribed for good: b is subscribed in its place, and two rounds later (each one an
	// update for every subscribed URI, delivered in order) a has had none since the first.
	if err := c.UnsubscribeResource(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := c.SubscribeResource(ctx, b); err != nil {
		t.Fatal(err)
	}
	round()
	waitFor(t, "resources_changed for "+b, func() bool { return rec.updates(b) >= 1 })
	n = rec.updates(a)
	nb := rec.updates(b)
	round()
	waitFor(t, "a second resources_changed for "+b, func() bool { return rec.updates(b) > nb })
	if got := rec.updates(a); got != n {
		t.Errorf("%d resources_changed for %s after it was unsubscribed", got-n, a)
	}
	if err := c.UnsubscribeResource(ctx, b); err != nil {
		t.Fatal(err)
	}
}
