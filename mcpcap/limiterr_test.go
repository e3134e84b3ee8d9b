package mcpcap

import (
	"context"
	"log/slog"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// TestDegradedKeepsTheLimitKey: a server refused by a pool cap degrades with an error that
// still names the cap's key (ext.LimitKey), on the failing access and on later ones, so a
// caller can tell a cap reached from a server that is down.
func TestDegradedKeepsTheLimitKey(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	p := connpool.New(&connpool.Options{MaxSessionProcesses: 1, IdleTimeout: -1, Logger: quiet})
	defer p.Close(context.Background())
	server := connpool.ServerConfig{Server: decl.Server{Command: testserver.Build(t)}}
	first, err := New(Config{Name: "first", Server: server}, WithPool(p, "session-1"), WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close(context.Background())
	if _, err := first.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Name: "capped", Server: server, Retry: decl.Retry{Attempts: 1}}, WithPool(p, "session-2"), WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for i := range 2 {
		_, err := c.Tools(context.Background())
		if key, ok := ext.LimitKey(err); !ok || key != "pool.max_session_processes" {
			t.Errorf("access %d: %v: limit key %q, %v; want pool.max_session_processes", i, err, key, ok)
		}
	}
}
