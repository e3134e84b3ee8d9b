package mcpcap

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// TestLogLevelSharedConnection: Caps with the same configuration share one pooled connection,
// so one server session and one log level. The most verbose level any of them asked for is
// the one the server keeps: a Cap asking for a less verbose one later must not take from
// another Cap's observers the messages they asked for.
func TestLogLevelSharedConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := newPool(t)
	cfg := Config{Name: "fault", Server: connpool.ServerConfig{Command: testserver.Build(t)}}
	verbose, quiet := newPoolCap(t, p, "", cfg), newPoolCap(t, p, "", cfg)
	for _, c := range []*Cap{verbose, quiet} {
		if _, err := c.Tools(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := p.Stats(); st.Clients != 1 {
		t.Fatalf("pool stats %+v: want both Caps on one client", st)
	}
	var mu sync.Mutex
	var got []string
	defer verbose.ObserveLog(func(m ext.LogMessage) {
		mu.Lock()
		got = append(got, m.Level+":"+string(m.Data))
		mu.Unlock()
	})()
	if err := verbose.SetLogLevel(ctx, "debug"); err != nil {
		t.Fatal(err)
	}
	if err := quiet.SetLogLevel(ctx, "error"); err != nil {
		t.Fatal(err)
	}
	callText(t, verbose, "log", `{"level":"info","text":"wanted"}`)
	mu.Lock()
	defer mu.Unlock()
	for _, m := range got {
		if m == `info:"wanted"` {
			return
		}
	}
	t.Errorf("the Cap that asked for debug got %q: another Cap's error level on the shared connection took its info message", got)
}
