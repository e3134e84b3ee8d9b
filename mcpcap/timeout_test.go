package mcpcap

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// TestCallTimeout: a call that outlasts Config.Timeout fails with context.DeadlineExceeded,
// is cancelled on the server, and leaves the connection up for the next call; passed through
// or not, on stdio or streamable HTTP.
func TestCallTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  bool
		http bool
	}{{"stdio", false, false}, {"stdio raw", true, false}, {"http raw", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "calls.log")
			server := decl.Server{Command: testserver.Build(t), Args: []string{"--log", log}}
			if tc.http {
				server = decl.Server{Type: connpool.TypeStreamableHTTP, URL: startHTTPFaultserver(t, "127.0.0.1:0", "--log", log).url}
			}
			c := newPoolCap(t, newPool(t), "", Config{Name: "slow", Server: connpool.ServerConfig{Server: server}, Timeout: 300 * time.Millisecond})
			pid := callText(t, c, "pid", `{}`)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := callAs(ctx, c, tc.raw, "sleep", `{"ms":30000}`); !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				t.Fatalf("call past the timeout: %v, want context.DeadlineExceeded", err)
			}
			testwait.For(t, "the server to log the cancellation", func() bool { return countLines(t, log, "cancelled "+pid) == 1 })
			if got := callText(t, c, "pid", `{}`); got != pid {
				t.Fatalf("connection not reused after the timeout: pid %s, was %s", got, pid)
			}
		})
	}
}
