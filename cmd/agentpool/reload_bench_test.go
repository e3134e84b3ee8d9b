package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	benchReloadServers  = 50               // stdio servers, each a process of its own
	benchReloadSkills   = 1000             // SKILL.md folders under skills.dirs
	benchReloadSessions = 20               // connected client sessions, all watching for the new view
	benchReloadNotice   = 60 * time.Second // bounds a wait for serve, never asserts a speed
)

// BenchmarkConfigReload measures a config reload of the real `agentpool serve` binary (its
// file watcher and debounce, host.Reload, the gateway's list_changed and view), with 50
// stdio servers running (not lazy: each is a faultserver process of its own, connected
// before the first iteration) and 1,000 skills, while 20 client sessions are connected over
// streamable HTTP. Each iteration rewrites the config as an editor does (a new file renamed
// over it) replacing server extra<i-1> with extra<i> — one server removed, one added and
// started — and times from the write until every session has received
// notifications/tools/list_changed and its tools/list shows extra<i>'s tools and no longer
// extra<i-1>'s. ms/reload is the mean of that over iterations (first-ms/reload: until the
// first session saw it); debounce-ms is the watcher's quiet time, included in ms/reload, and
// net-ms/reload is ms/reload minus it (the target: ≤ 1 s). At the end each session
// calls a tool: none may have been dropped. applied-ms/reload is the part until serve logged
// the reload applied (debounce, reading the file, host.Reload); the rest is the gateway
// updating each session's view and the clients listing it.
//
// Baselines in the same run: skills=0 (what the 1,000 skills cost) and sessions=1 (what is
// per session).
//
// Run: go test -run '^$' -bench ConfigReload -benchtime 3x ./cmd/agentpool
func BenchmarkConfigReload(b *testing.B) {
	for _, c := range []struct{ skills, sessions int }{
		{benchReloadSkills, benchReloadSessions}, {0, benchReloadSessions}, {benchReloadSkills, 1},
	} {
		b.Run(fmt.Sprintf("skills=%d/sessions=%d", c.skills, c.sessions), func(b *testing.B) {
			benchConfigReload(b, c.skills, c.sessions)
		})
	}
}

func benchConfigReload(b *testing.B, nSkills, nSessions int) {
	bin := testserver.Build(b)
	dir := b.TempDir()
	skills := filepath.Join(dir, "skills")
	if err := os.MkdirAll(skills, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range nSkills {
		name := fmt.Sprintf("skill-%04d", i)
		text := fmt.Sprintf("---\nname: %s\ndescription: Benchmark skill %d: does one thing well.\n---\n# %s\nBody.\n", name, i, name)
		if err := os.MkdirAll(filepath.Join(skills, name), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(skills, name, "SKILL.md"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	config := func(extra int) string {
		var s strings.Builder
		fmt.Fprintf(&s, "pool: {max_clients: %d}\nskills: {dirs: [%s]}\nmcp_servers:\n", benchReloadServers+10, skills)
		for i := range benchReloadServers {
			// Distinct args: the pool shares one process between identical commands.
			fmt.Fprintf(&s, "  s%02d: {command: %s, args: [--stderr, s%02d]}\n", i, bin, i)
		}
		fmt.Fprintf(&s, "  extra%d: {command: %s, args: [--stderr, extra%d]}\n", extra, bin, extra)
		return s.String()
	}
	path := filepath.Join(dir, "agentpool.yaml")
	if err := os.WriteFile(path, []byte(config(0)), 0o644); err != nil {
		b.Fatal(err)
	}
	url, applied := benchServe(b, path)

	sessions := make([]*benchSession, nSessions)
	for i := range sessions {
		sessions[i] = benchConnectWatching(b, url)
	}
	for _, s := range sessions { // every view compiled: all 51 servers running
		if !s.sees("extra0__pid", "") {
			b.Fatal("extra0__pid not listed")
		}
	}
	tools, err := sessions[0].cs.ListTools(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}

	var total, first, apply time.Duration
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		for _, s := range sessions {
			s.drain()
		}
		drainTimes(applied)
		text := config(i)
		start := time.Now()
		benchReplace(b, path, text)
		want, gone := fmt.Sprintf("extra%d__pid", i), fmt.Sprintf("extra%d__pid", i-1)
		seen := make([]time.Duration, len(sessions))
		var wg sync.WaitGroup
		for j, s := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.waitView(want, gone) {
					seen[j] = time.Since(start)
				}
			}()
		}
		wg.Wait()
		if slices.Contains(seen, 0) {
			b.Fatalf("reload %d: a session did not see %s within %s", i, want, benchReloadNotice)
		}
		select {
		case at := <-applied:
			apply += at.Sub(start)
		case <-time.After(benchReloadNotice):
			b.Fatalf("reload %d: serve logged no reload applied", i)
		}
		total += slices.Max(seen)
		first += slices.Min(seen)
	}
	b.StopTimer()
	for j, s := range sessions {
		ctx, cancel := context.WithTimeout(context.Background(), benchReloadNotice)
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "s00__echo", Arguments: map[string]any{"text": "still here"}})
		cancel()
		if err != nil || res.IsError {
			b.Fatalf("session %d after %d reloads: call failed: %v %v", j, b.N, err, res)
		}
	}
	debounce := float64(reloadDebounce.Milliseconds())
	ms := float64(total.Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(ms, "ms/reload")
	b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "first-ms/reload")
	b.ReportMetric(float64(apply.Microseconds())/1000/float64(b.N), "applied-ms/reload")
	b.ReportMetric(debounce, "debounce-ms")
	b.ReportMetric(ms-debounce, "net-ms/reload")
	var lists int64
	for _, s := range sessions {
		lists += s.lists.Load()
	}
	b.ReportMetric(float64(lists)/float64(len(sessions)*b.N), "lists/session/reload")
	b.ReportMetric(float64(len(sessions)), "sessions")
	b.ReportMetric(float64(len(tools.Tools)), "tools")
}

// benchServe runs `agentpool -v --config path serve --http 127.0.0.1:0`, stopped (SIGTERM)
// at cleanup, and returns its endpoint and when it logs each reload applied.
func benchServe(b *testing.B, path string) (string, <-chan time.Time) {
	cmd := exec.Command("agentpool", "-v", "--config", path, "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	sc := bufio.NewScanner(stderr)
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:[1-9][0-9]*/mcp`)
	var url string
	for url == "" && sc.Scan() {
		url = endpoint.FindString(sc.Text())
	}
	applied := make(chan time.Time, 16)
	go func() {
		for sc.Scan() {
			if strings.Contains(sc.Text(), `msg="config reloaded" file=`) {
				select {
				case applied <- time.Now():
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(done)
	}()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(benchReloadNotice):
			_ = cmd.Process.Kill()
			<-done
			b.Error("serve did not end after SIGTERM")
		}
	})
	if url == "" {
		b.Fatal("serve printed no endpoint URL")
	}
	return url, applied
}

// drainTimes forgets the times received so far.
func drainTimes(c <-chan time.Time) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// benchReplace writes text to path as editors do: a new file renamed over the old one.
func benchReplace(b *testing.B, path, text string) {
	if err := os.WriteFile(path+".tmp", []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
}

// benchSession is a client session that records its tools/list_changed notifications.
type benchSession struct {
	cs      *mcp.ClientSession
	changed chan struct{}
	lists   atomic.Int64 // tools/list calls made while waiting for a new view
}

func benchConnectWatching(b *testing.B, url string) *benchSession {
	s := &benchSession{changed: make(chan struct{}, 64)}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default: // one pending is enough to look again
			}
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	s.cs = cs
	return s
}

// drain forgets the notifications received so far.
func (s *benchSession) drain() {
	for {
		select {
		case <-s.changed:
		default:
			return
		}
	}
}

// sees reports whether tools/list shows want and (unless "") not gone.
func (s *benchSession) sees(want, gone string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), benchReloadNotice)
	defer cancel()
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		return false
	}
	has := func(name string) bool {
		return slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == name })
	}
	return has(want) && (gone == "" || !has(gone))
}

// waitView waits for list_changed notifications until tools/list shows the new view; false
// when none came in time.
func (s *benchSession) waitView(want, gone string) bool {
	deadline := time.After(benchReloadNotice)
	for {
		select {
		case <-s.changed:
			s.lists.Add(1)
			if s.sees(want, gone) {
				return true
			}
		case <-deadline:
			return false
		}
	}
}
