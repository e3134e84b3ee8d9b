package gateway_test

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
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

// TestServeTransportMaxLineLength: Serve keeps the cap on one message that the transport it
// is given sets: a longer line from the client ends the session unanswered.
func TestServeTransportMaxLineLength(t *testing.T) {
	f := newFixture(t, nil)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- f.g.Serve(ctx, &mcp.IOTransport{Reader: sr, Writer: sw, MaxLineLength: 64})
		_ = sw.Close()
	}()
	go func() { _, _ = io.Copy(io.Discard, cr) }()
	line := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n"
	go func() { _, _ = io.WriteString(cw, line) }()
	select {
	case <-served:
	case <-time.After(testwait.Timeout):
		t.Errorf("a line of %d bytes past MaxLineLength 64 did not end the session", len(line))
	}
	_ = cw.Close()
}

// TestServeStdioTransportLeavesStdout: Serve over an mcp.StdioTransport leaves the process's
// stdout open when the session ends, as the go-sdk's own use of that transport does.
func TestServeStdioTransportLeavesStdout(t *testing.T) {
	f := newFixture(t, nil)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	stdin, stdout := os.Stdin, os.Stdout
	os.Stdin, os.Stdout = inR, outW
	defer func() { os.Stdin, os.Stdout = stdin, stdout }()
	served := make(chan error, 1)
	go func() { served <- f.g.Serve(context.Background(), &mcp.StdioTransport{}) }()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	_ = inW.Close()
	select {
	case <-served:
	case <-time.After(testwait.Timeout):
		t.Fatal("Serve did not return after stdin ended")
	}
	if _, err := outW.Write([]byte("\n")); err != nil {
		t.Errorf("stdout after the session ended: %v", err)
	}
}
