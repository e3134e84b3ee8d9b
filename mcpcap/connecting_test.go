package mcpcap

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
)

// TestStatusConnecting: while a connect attempt runs, Status says "connecting", not "idle";
// once it has failed for good, "degraded".
func TestStatusConnecting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFlakyNet(t)
		release := make(chan struct{})
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			<-release
			return n.dial(ctx, network, addr)
		}
		quiet := slog.New(slog.DiscardHandler)
		p := connpool.New(&connpool.Options{DialContext: dial, IdleTimeout: -1, Logger: quiet})
		defer p.Close(context.Background())
		c, err := New(Config{Name: "slow", Server: connpool.ServerConfig{Server: decl.Server{URL: n.url}},
			Retry: decl.Retry{Attempts: 1, Backoff: time.Second}}, WithPool(p, ""), WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		if st := c.Status(); st.State != StateIdle {
			t.Fatalf("state %s before any use, want %s", st.State, StateIdle)
		}
		done := make(chan error)
		go func() { _, err := c.Tools(context.Background()); done <- err }()
		synctest.Wait()
		if st := c.Status(); st.State != StateConnecting {
			t.Errorf("state %s while connecting, want %s", st.State, StateConnecting)
		}
		close(release)
		if err := <-done; err == nil {
			t.Fatal("Tools succeeded with the server refusing connections")
		}
		if st := c.Status(); st.State != StateDegraded {
			t.Errorf("state %s after the failed round, want %s", st.State, StateDegraded)
		}
	})
}

// TestRecoveryAnnouncedOnceConnected: the tools_changed a Cap announces when it leaves the
// degraded state is emitted once Status says connected, so whoever reads Status on the
// announcement (serve's watcher, a view's health check) sees the recovery it announces.
func TestRecoveryAnnouncedOnceConnected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFlakyNet(t)
		quiet := slog.New(slog.DiscardHandler)
		p := connpool.New(&connpool.Options{DialContext: n.dial, IdleTimeout: -1, Logger: quiet})
		defer p.Close(context.Background())
		c, err := New(Config{Name: "flaky", Server: connpool.ServerConfig{Server: decl.Server{URL: n.url}},
			Retry: decl.Retry{Attempts: 1, Backoff: time.Second}}, WithPool(p, ""), WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		var seen []State // Status at each tools_changed, read as the announcement arrives
		stop := c.Observe(func(ev ext.ChangeEvent) {
			if ev.Kind == ext.ToolsChanged {
				seen = append(seen, c.Status().State)
			}
		})
		defer stop()
		ctx := context.Background()
		if _, err := c.Tools(ctx); err == nil {
			t.Fatal("Tools succeeded with the server refusing connections")
		}
		advance(time.Second)
		n.setDown(false)
		if _, err := c.Tools(ctx); err != nil {
			t.Fatalf("Tools once the server is back: %v", err)
		}
		if len(seen) != 2 || seen[0] != StateDegraded || seen[1] != StateConnected {
			t.Errorf("Status at the tools_changed announcements: %v, want [%s %s]", seen, StateDegraded, StateConnected)
		}
	})
}
