package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWatch runs `agentpool <args> watch --json` in process until the test ends and returns
// the events it prints, once it has said it is watching.
func startWatch(t *testing.T, args ...string) <-chan ext.ChangeEvent {
	t.Helper()
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	cmd := newRootCmd()
	cmd.SetArgs(append(args, "watch", "--json"))
	cmd.SetOut(pw)
	cmd.SetErr(stderr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := cmd.ExecuteContext(ctx)
		pw.Close()
		done <- err
	}()
	events := make(chan ext.ChangeEvent, 100)
	readerDone := make(chan struct{})
	t.Cleanup(func() {
		close(readerDone)
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch: %v", err)
		}
	})
	go func() {
		defer close(events)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var ev ext.ChangeEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("watch printed a line that is not a ChangeEvent: %q", sc.Text())
				continue
			}
			select {
			case events <- ev:
			case <-readerDone: // the test has stopped reading: keep draining the pipe
			}
		}
	}()
	testwait.For(t, "watch to start", func() bool { return strings.Contains(stderr.String(), "watching") })
	return events
}

// expectEvent waits for an event of kind from capability (and, unless uri is "", about uri),
// then drains the rest of its batch.
func expectEvent(t *testing.T, events <-chan ext.ChangeEvent, step string, kind ext.ChangeKind, capability, uri string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("%s: stream ended", step)
			}
			t.Logf("%s: event %+v", step, ev)
			if ev.Kind == kind && ev.Capability == capability && (uri == "" || ev.SourceURI == uri) {
				drainBatch(events)
				return
			}
		case <-deadline:
			t.Fatalf("%s: no %s event from %s for %q", step, kind, capability, uri)
		}
	}
}

// TestWatchJSON runs `agentpool watch --json` over a real skill root and checks that a skill
// created, edited (editor-style: temp file renamed over SKILL.md), renamed and deleted after
// start-up each produce skills_changed events naming the skill.
func TestWatchJSON(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	events := startWatch(t, "--no-default-roots", "--skills-dir", root)
	expect := func(step, uri string) {
		t.Helper()
		expectEvent(t, events, step, ext.SkillsChanged, "skills", uri)
	}
	dir := filepath.Join(root, "fresh")
	write := func(path, desc string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte("---\nname: fresh\ndescription: "+desc+"\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "SKILL.md"), "First.")
	expect("create", "skill://fresh/SKILL.md")
	write(filepath.Join(dir, "SKILL.md"), "Second.")
	expect("edit", "skill://fresh/SKILL.md")
	if err := os.Rename(dir, filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	expect("rename", "skill://fresh/SKILL.md")
	if err := os.RemoveAll(filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	expect("delete", "skill://fresh/SKILL.md")
}

// drainBatch discards the rest of the batch an event came in: the watcher emits a batch's events
// together, then stays quiet for at least its 500 ms debounce, so 250 ms of quiet ends the batch
// and the next step cannot be satisfied by a leftover of this one.
func drainBatch(events <-chan ext.ChangeEvent) {
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-time.After(250 * time.Millisecond):
			return
		}
	}
}

// TestWatchUpstreamToolsChanged runs watch with an MCP server from the config (faultserver over
// streamable HTTP, one server for every client) and has another client add a tool to it after
// start-up: watch must print the server's tools_changed, which needs it to be connected.
func TestWatchUpstreamToolsChanged(t *testing.T) {
	url := startHTTPFault(t)
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  fault:\n    url: "+url+"\n")
	t.Setenv("HOME", t.TempDir())
	events := startWatch(t, "--no-default-roots", "--config", cfg)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "test"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add_tool", Arguments: map[string]any{"name": "added"}}); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, events, "add_tool", ext.ToolsChanged, "fault", "")
}

// startHTTPFault runs faultserver --http on a free loopback port until the test ends and
// returns its streamable HTTP URL.
func startHTTPFault(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(testserver.Build(t), "--http", "127.0.0.1:0")
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
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("faultserver --http: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestWatchSaysWhatIsNotWatched: with skills.watch: false, watch says that skills and commands
// are not watched rather than only "watching".
func TestWatchSaysWhatIsNotWatched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeExec(t, dir, "agentpool.yaml", "skills:\n  watch: false\n", 0o644)
	stderr := &syncBuffer{}
	root := newRootCmd()
	root.SetArgs([]string{"--no-default-roots", "--config", cfg, "watch"})
	root.SetOut(&syncBuffer{})
	root.SetErr(stderr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	testwait.For(t, "watch to start", func() bool { return strings.Contains(stderr.String(), "watching") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "skills and commands are not watched (skills.watch: false)") {
		t.Errorf("stderr: %s", stderr)
	}
}
