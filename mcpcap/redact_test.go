package mcpcap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
)

// lockedBuffer collects log output written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestSecretsNotPrinted: a server whose URL carries a token (or user info) and is down is
// reported — connect errors, retries logged, the degraded error, Status and Health — without
// the token, the password or a header value.
func TestSecretsNotPrinted(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := connpool.New(&connpool.Options{KillGrace: 500 * time.Millisecond, IdleTimeout: -1, Logger: logger})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("pool close: %v", err)
		}
	})
	for i, spec := range []decl.Server{
		{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp?token=SECRET123", port), Headers: map[string]string{"X-Key": "HDRSECRET789"}},
		{Type: "sse", URL: fmt.Sprintf("http://user:pw-SECRET456@127.0.0.1:%d/sse", port)},
	} {
		if err := spec.Validate("mcp_servers.down"); err != nil {
			t.Fatal(err)
		}
		cfg, err := ConfigOf(fmt.Sprintf("down%d", i), spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Retry = decl.Retry{Attempts: 2, Backoff: time.Millisecond}
		c, err := New(cfg, WithPool(p, ""), WithLogger(logger))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err = c.Tools(ctx)
		cancel()
		if !errors.Is(err, ErrDegraded) {
			t.Fatalf("Tools = %v, want ErrDegraded", err)
		}
		st := c.Status()
		if st.State != StateDegraded || st.LastError == "" {
			t.Fatalf("status %+v, want degraded with its error", st)
		}
		for what, text := range map[string]string{
			"Tools error":         err.Error(),
			"Status.LastError":    st.LastError,
			"Health.Err":          c.Health().Err,
			"%v of a decl.Server": fmt.Sprintf("%v %+v %#v", spec, spec, spec),
			"%v of a Config":      fmt.Sprintf("%v %+v", cfg, cfg),
		} {
			for _, secret := range []string{"SECRET123", "pw-SECRET456", "HDRSECRET789"} {
				if strings.Contains(text, secret) {
					t.Errorf("%s shows %s: %s", what, secret, text)
				}
			}
		}
	}
	for _, secret := range []string{"SECRET123", "pw-SECRET456", "HDRSECRET789"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("log shows %s:\n%s", secret, logs.String())
		}
	}
}
