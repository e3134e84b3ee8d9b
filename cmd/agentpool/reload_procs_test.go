package main

import (
	"context"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeReloadEndsSessionServers: an edit that changes one session-scoped server and
// removes another ends their processes in a live session at once (not after
// pool.idle_timeout), gives the session the changed one's new process, and leaves an
// unchanged pool server's process alone; the session goes on calling.
func TestServeReloadEndsSessionServers(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	// Distinct args: the pool shares one process between identical commands in a partition.
	writeFile(t, path, "mcp_servers:\n  keep: {command: "+bin+"}\n"+
		"  mine: {command: "+bin+", scope: session}\n  gone: {command: "+bin+", args: [--stderr, gone], scope: session}\n")
	_, url, _ := startReloadServe(t, path)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	keep, mine, gone := pidOf(t, cs, "keep__pid"), pidOf(t, cs, "mine__pid"), pidOf(t, cs, "gone__pid")

	replaceFile(t, path, "mcp_servers:\n  keep: {command: "+bin+"}\n"+
		"  mine: {command: "+bin+", args: [--stderr, changed], scope: session}\n")
	waitReload(t, "gone__pid no longer listed", func() bool {
		tools, err := cs.ListTools(context.Background(), nil)
		return err == nil && !slices.ContainsFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == "gone__pid" })
	})
	waitNewPid(t, cs, "mine__pid", mine)
	waitGone(t, gone, "removed session server gone")
	waitGone(t, mine, "changed session server mine's old process")
	if got := pidOf(t, cs, "keep__pid"); got != keep {
		t.Errorf("unchanged server keep: pid %d, was %d", got, keep)
	}
	if err := syscall.Kill(keep, 0); err != nil {
		t.Errorf("unchanged server keep's process %d: %v", keep, err)
	}
}
