package gateway_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipeClient connects a go-sdk client to g.Serve over in-process pipes and returns the
// client session and Serve's result.
func pipeClient(t *testing.T, ctx context.Context, g *gateway.Gateway) (*mcp.ClientSession, <-chan error) {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	served := make(chan error, 1)
	go func() {
		served <- g.Serve(ctx, &mcp.IOTransport{Reader: sr, Writer: sw})
		_ = sw.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, served
}

// TestServeTransport: Serve serves one client over a transport until the client leaves or
// ctx ends, and ends its session either way.
func TestServeTransport(t *testing.T) {
	f := newFixture(t, nil)
	cs, served := pipeClient(t, context.Background(), f.g)
	if got := call(t, cs, "fault__echo", map[string]any{"text": "piped"}); got != "piped" {
		t.Errorf("echo = %q", got)
	}
	if n := f.g.Sessions(); n != 1 {
		t.Errorf("Sessions() = %d, want 1", n)
	}
	_ = cs.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after the client left")
	}
	if n := f.g.Sessions(); n != 0 {
		t.Errorf("Sessions() = %d after the client left", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cs, served = pipeClient(t, ctx, f.g)
	call(t, cs, "fault__pid", map[string]any{})
	cancel()
	select {
	case <-served:
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after ctx ended")
	}
	_ = cs.Close()
	if n := f.g.Sessions(); n != 0 {
		t.Errorf("Sessions() = %d after ctx ended", n)
	}
}
