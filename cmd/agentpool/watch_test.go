package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
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

// TestWatchJSON runs `agentpool watch --json` over a real skill root and checks that a skill
// created, edited (editor-style: temp file renamed over SKILL.md), renamed and deleted after
// start-up each produce skills_changed events naming the skill.
func TestWatchJSON(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	cmd := newRootCmd()
	cmd.SetArgs([]string{"--no-default-roots", "--skills-dir", root, "watch", "--json"})
	cmd.SetOut(pw)
	cmd.SetErr(stderr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := cmd.ExecuteContext(ctx)
		pw.Close()
		done <- err
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch: %v", err)
		}
	}()

	events := make(chan ext.ChangeEvent, 100)
	readerDone := make(chan struct{})
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
	defer close(readerDone)
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "watching") }, "watch to start")

	expect := func(step, uri string) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("%s: stream ended", step)
				}
				t.Logf("%s: event %+v", step, ev)
				if ev.Kind == ext.SkillsChanged && ev.Capability == "skills" && (uri == "" || ev.SourceURI == uri) {
					drainBatch(events)
					return
				}
			case <-deadline:
				t.Fatalf("%s: no skills_changed event for %q", step, uri)
			}
		}
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

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
