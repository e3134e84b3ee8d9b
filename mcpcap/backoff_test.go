package mcpcap

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/memnet"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// flakyNet is an MCP server over streamable HTTP in memory (memnet) whose connections are
// refused while down, recording when each was dialled.
type flakyNet struct {
	l     *memnet.Listener
	url   string
	start time.Time

	mu    sync.Mutex
	down  bool
	dials []time.Duration // since start
}

func newFlakyNet(t *testing.T) *flakyNet {
	server := mcp.NewServer(&mcp.Implementation{Name: "flaky"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	srv, l := memnet.NewServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	return &flakyNet{l: l, url: srv.URL + "/mcp", start: time.Now(), down: true}
}

func (n *flakyNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dials = append(n.dials, time.Since(n.start))
	down := n.down
	n.mu.Unlock()
	if down {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	return n.l.Dial(ctx, network, addr)
}

func (n *flakyNet) setDown(down bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.down = down
}

// attempts returns the distinct times connections were dialled at.
func (n *flakyNet) attempts() []time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Compact(slices.Clone(n.dials))
}

// TestReconnectBackoff: on a synctest bubble's clock, with the default retry (3 attempts,
// backoff 1 s doubled), a server that refuses connections is tried at 0, 1 s and 3 s; the
// Cap is then degraded, and accesses fail without a try, until Backoff << (Attempts-1) = 4 s
// later, when one access tries once more and, the server back, restores it.
func TestReconnectBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFlakyNet(t)
		quiet := slog.New(slog.DiscardHandler)
		p := connpool.New(&connpool.Options{DialContext: n.dial, IdleTimeout: -1, Logger: quiet})
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := p.Close(ctx); err != nil {
				t.Errorf("pool close: %v", err)
			}
		}()
		c, err := New(Config{Name: "flaky", Server: connpool.ServerConfig{Server: decl.Server{URL: n.url}}}, WithPool(p, ""), WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		ctx := context.Background()

		if _, err := c.Tools(ctx); err == nil {
			t.Fatal("Tools succeeded with the server refusing connections")
		}
		if got, want := n.attempts(), []time.Duration{0, time.Second, 3 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("connections tried at %v, want %v", got, want)
		}
		st := c.Status()
		if st.State != StateDegraded {
			t.Fatalf("state %s after a failed round, want %s", st.State, StateDegraded)
		}
		if got, want := st.NextAttempt.Sub(n.start), 7*time.Second; got != want {
			t.Errorf("next attempt at %v, want %v (the last try + 4 s)", got, want)
		}

		advance(4*time.Second - time.Millisecond)
		n.setDown(false)
		if _, err := c.Tools(ctx); err == nil {
			t.Fatal("Tools before the degraded interval has passed succeeded")
		}
		if got := len(n.attempts()); got != 3 {
			t.Fatalf("%d tries, want no new one before the degraded interval has passed", got)
		}
		advance(time.Millisecond)
		if _, err := c.Tools(ctx); err != nil {
			t.Fatalf("Tools once the interval has passed and the server is back: %v", err)
		}
		if got := n.attempts(); len(got) < 4 || got[3] != 7*time.Second {
			t.Errorf("connections tried at %v, want a fourth at 7s", got)
		}
		if st := c.Status(); st.State != StateConnected {
			t.Errorf("state %s after the probe connected, want %s", st.State, StateConnected)
		}
	})
}
