package connpool

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// startHTTPServer runs faultserver --http on a free 127.0.0.1 port and
// returns its streamable HTTP URL. The process is killed at cleanup.
func startHTTPServer(t *testing.T, args ...string) string {
	t.Helper()
	u, _ := startHTTPServerCmd(t, args...)
	return u
}

// startHTTPServerCmd is startHTTPServer that also returns the process, for a
// test that kills it early.
func startHTTPServerCmd(t *testing.T, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(faultBinary(t), append([]string{"--http", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case u := <-line:
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("faultserver printed %q", u)
		}
		return u, cmd
	case <-time.After(20 * time.Second):
		t.Fatal("faultserver --http printed no URL")
		return "", nil
	}
}

func TestHTTPTransportsWithHeaders(t *testing.T) {
	url := startHTTPServer(t, "--require-header", "X-Token=secret")
	p := newTestPool(t, nil)
	hdr := map[string]string{"X-Token": "secret"}
	for _, tc := range []struct{ typ, url string }{
		{TypeStreamableHTTP, url},
		{TypeSSE, strings.TrimSuffix(url, "/mcp") + "/sse"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			cfg := ServerConfig{Name: "web", Server: decl.Server{Type: tc.typ, URL: tc.url, Headers: hdr}}
			a := mustGet(t, p, cfg, GlobalPartition)
			b := mustGet(t, p, cfg, GlobalPartition)
			if a.c != b.c || a.PID() != 0 {
				t.Fatalf("HTTP leases not shared or PID %d != 0", a.PID())
			}
			if got := mustCall(t, a, "echo", map[string]any{"text": "over " + tc.typ}); got != "over "+tc.typ {
				t.Fatalf("echo = %q", got)
			}
			ch := make(chan Notification, 4)
			b.Observe(func(n Notification) { ch <- n })
			mustCall(t, a, "add_tool", map[string]any{"name": "web_" + strings.ReplaceAll(tc.typ, "-", "_")})
			select {
			case n := <-ch:
				if n.Kind != ToolsListChanged {
					t.Fatalf("got %v", n.Kind)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no list_changed over HTTP")
			}
			p.Release(a)
			p.Release(b)

			bad := cfg
			bad.Headers = map[string]string{"X-Token": "wrong"}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if c, err := p.Get(ctx, bad, GlobalPartition); !errors.Is(err, ErrStart) {
				if err == nil {
					p.Release(c)
				}
				t.Fatalf("wrong header: %v, want ErrStart", err)
			}
		})
	}
}
