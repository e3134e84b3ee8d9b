package mcpcap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// startCounter writes a script that appends "start" to a file each time it runs, then runs
// body. It returns the script and the file.
func startCounter(t *testing.T, body string) (script, starts string) {
	t.Helper()
	dir := t.TempDir()
	starts = filepath.Join(dir, "starts")
	script = filepath.Join(dir, "server.sh")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho start >> %q\n%s\n", starts, body)), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, starts
}

// waitPast waits until the Cap's degraded retry time has passed, so the next access probes.
func waitPast(t *testing.T, c *Cap) {
	t.Helper()
	if d := time.Until(c.Status().NextAttempt); d > 0 {
		time.Sleep(d + 10*time.Millisecond)
	}
}

// TestStartTimeoutNotRetried: a hung server is started once per request, not Retry.Attempts
// times: a start that ran out of its startup timeout is not repeated in the same connect
// round. The Cap is degraded with the timeout recorded, and a later request starts it again.
func TestStartTimeoutNotRetried(t *testing.T) {
	script, starts := startCounter(t, "exec "+testserver.Build(t)+" --hang-initialize")
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "hung",
		Server: connpool.ServerConfig{Command: script, StartTimeout: 300 * time.Millisecond},
		Retry:  Retry{Attempts: 3, Backoff: 10 * time.Millisecond}})
	ctx := context.Background()
	begin := time.Now()
	_, err := c.Tools(ctx)
	t.Logf("hung server (startup_timeout 300ms, 3 attempts): Tools failed after %v", time.Since(begin))
	if !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "start timed out") {
		t.Fatalf("Tools = %v; want ErrDegraded naming the start timeout", err)
	}
	if got := countLines(t, starts, "start"); got != 1 {
		t.Fatalf("%d starts in one request, want 1", got)
	}
	if st := c.Status(); st.State != StateDegraded || !strings.Contains(st.LastError, "start timed out") {
		t.Fatalf("status = %+v", st)
	}
	waitPast(t, c)
	if _, err := c.Tools(ctx); !errors.Is(err, ErrDegraded) {
		t.Fatalf("second request: %v", err)
	}
	if got := countLines(t, starts, "start"); got != 2 {
		t.Fatalf("%d starts after a second request, want 2", got)
	}
}

// TestPermanentStartFailsAtOnce: a start that cannot succeed by trying again (no such
// command, no execute permission, HTTP 401 on initialize) fails the request at once, without
// the backoff of a retry (an hour here, so a retry would show as the guard's deadline). The Cap
// is degraded with the error recorded; a later request tries again and, once the command is
// there, connects.
func TestPermanentStartFailsAtOnce(t *testing.T) {
	bin := testserver.Build(t)
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "who are you?", http.StatusUnauthorized)
	}))
	t.Cleanup(unauthorized.Close)
	for _, tc := range []struct {
		name   string
		server func(dir string) connpool.ServerConfig
		want   string
		fix    func(dir string) error // makes the server startable; nil: no recovery checked
	}{
		{"missing binary", func(dir string) connpool.ServerConfig {
			return connpool.ServerConfig{Command: filepath.Join(dir, "server")}
		}, "no such file or directory", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "server"), []byte("#!/bin/sh\nexec "+bin+"\n"), 0o755)
		}},
		{"not executable", func(dir string) connpool.ServerConfig {
			os.WriteFile(filepath.Join(dir, "server"), []byte("#!/bin/sh\nexec "+bin+"\n"), 0o644)
			return connpool.ServerConfig{Command: filepath.Join(dir, "server")}
		}, "permission denied", func(dir string) error {
			return os.Chmod(filepath.Join(dir, "server"), 0o755)
		}},
		{"http 401", func(string) connpool.ServerConfig {
			return connpool.ServerConfig{URL: unauthorized.URL}
		}, "401", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := newPool(t)
			slow := newPoolCap(t, p, "", Config{Name: "slow", Server: tc.server(dir), Retry: Retry{Attempts: 3, Backoff: time.Hour}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			begin := time.Now()
			_, err := slow.Tools(ctx)
			t.Logf("%s: Tools failed after %v", tc.name, time.Since(begin))
			if ctx.Err() != nil {
				t.Fatalf("the request waited to retry: %v", err)
			}
			if !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "permanent") {
				t.Fatalf("Tools = %v; want ErrDegraded with %q", err, tc.want)
			}
			if st := slow.Status(); st.State != StateDegraded || !strings.Contains(st.LastError, tc.want) {
				t.Fatalf("status = %+v", st)
			}
			if tc.fix == nil {
				return
			}
			// A later request tries again: the binary may have appeared.
			c := newPoolCap(t, p, "", Config{Name: "fixed", Server: tc.server(t.TempDir()), Retry: Retry{Attempts: 3, Backoff: 10 * time.Millisecond}})
			if _, err := c.Tools(ctx); !errors.Is(err, ErrDegraded) {
				t.Fatalf("Tools = %v; want ErrDegraded", err)
			}
			if err := tc.fix(filepath.Dir(c.cfg.Server.Command)); err != nil {
				t.Fatal(err)
			}
			waitPast(t, c)
			tools, err := c.Tools(ctx)
			if err != nil || len(tools) == 0 {
				t.Fatalf("after the fix: %d tools, %v", len(tools), err)
			}
		})
	}
}

// TestCallTimeoutDoesNotBoundStart: a lazy Cap's first call starts the server within the
// startup timeout, not the call timeout: a server slower to start than the call timeout is
// still called.
func TestCallTimeoutDoesNotBoundStart(t *testing.T) {
	script, _ := startCounter(t, "sleep 2\nexec "+testserver.Build(t))
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "slowstart", Lazy: true,
		Tools:   []ext.ToolEntry{{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Server:  connpool.ServerConfig{Command: script, StartTimeout: 30 * time.Second},
		Timeout: time.Second})
	if got := callText(t, c, "echo", `{"text":"late but fine"}`); got != "late but fine" {
		t.Fatalf("echo = %q", got)
	}
}

// TestUnknownSchemeStartsNothing: routing a URI of a scheme no registration names asks the Caps
// what they know (ResourceSchemes) and so starts no server: three configured, unused servers
// stay unstarted for typo://x, and for their own test:// scheme too until they have been
// listed. mcp://<server>/<uri> reaches a server's resource at any time; once listed, its own
// scheme routes to it.
func TestUnknownSchemeStartsNothing(t *testing.T) {
	bin := testserver.Build(t)
	p := newPool(t)
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { reg.Close(context.Background()) })
	var counters []string
	for _, name := range []string{"one", "two", "three"} {
		script, starts := startCounter(t, "exec "+bin)
		counters = append(counters, starts)
		c := newPoolCap(t, p, "", Config{Name: name, Server: connpool.ServerConfig{Command: script}})
		if err := reg.Register(c, ext.LevelPool, ext.Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	started := func() int {
		n := 0
		for _, f := range counters {
			n += countLines(t, f, "start")
		}
		return n
	}
	ctx := context.Background()
	for _, uri := range []string{"typo://x", "test://static/hello"} {
		_, err := reg.ResolveURI(ctx, uri, ext.Scope{})
		if !errors.Is(err, ext.ErrUnknownScheme) || !strings.Contains(err.Error(), "mcp://<server>/<uri>") {
			t.Fatalf("%s: %v; want ErrUnknownScheme pointing at mcp://<server>/<uri>", uri, err)
		}
		t.Log(err)
		if n, s := started(), p.Stats(); n != 0 || s.Clients+s.Starting != 0 {
			t.Fatalf("%s started %d servers (pool %+v)", uri, n, s)
		}
	}
	out, err := reg.ResolveURI(ctx, "mcp://two/test://static/hello", ext.Scope{})
	if err != nil || len(out) != 1 {
		t.Fatalf("mcp://two/…: %v, %v", out, err)
	}
	if n := started(); n != 1 {
		t.Fatalf("%d servers started for mcp://two/…, want 1", n)
	}
	// "two" has been listed: its scheme is known now, and routes to it without starting others.
	if out, err := reg.ResolveURI(ctx, "test://static/hello", ext.Scope{}); err != nil || len(out) != 1 {
		t.Fatalf("test:// after listing: %v, %v", out, err)
	}
	if _, err := reg.ResolveURI(ctx, "typo://x", ext.Scope{}); !errors.Is(err, ext.ErrUnknownScheme) || !strings.Contains(err.Error(), "known schemes: mcp, skill, test") {
		t.Fatalf("typo after listing: %v", err)
	}
	if n := started(); n != 1 {
		t.Fatalf("%d servers started, want 1", n)
	}
}
