package host

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/internal/testserver"
)

// TestReloadRemovingAHungServer: a reload that removes a server that stopped answering (its
// process stopped with SIGSTOP) while it holds a resource subscription returns, bounded by the
// registry's close timeout, rather than waiting on the unsubscribe the server never answers
// (up to the server's call timeout, here ten minutes) while sessions wait for the reload.
func TestReloadRemovingAHungServer(t *testing.T) {
	bin := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	h := buildHost(t, path, "mcp_servers:\n  hung: {command: "+bin+", timeout: 10m}\n", Options{})
	c := h.Servers[0]
	ctx := context.Background()
	if err := c.SubscribeResource(ctx, "test://static/hello"); err != nil {
		t.Fatal(err)
	}
	pid := c.Status().PID
	if pid == 0 {
		t.Fatal("no pid for the server")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	next, err := config.Parse(path, []byte("mcp_servers: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.Reload(ctx, next)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute): // a bound on the wait, far above the 5 s close bound
		t.Fatal("Reload still waits on the hung server's close")
	}
}
