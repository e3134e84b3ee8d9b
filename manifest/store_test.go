package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
)

func key(i int) string { return fmt.Sprintf("%064x", i) }

func tool(name string) ext.ToolEntry {
	return ext.ToolEntry{Name: name, Description: "does " + name, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func TestEntryRoundTripAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "manifests")
	s := NewStore(dir, nil)
	e := s.Entry(key(1), "srv")
	if _, _, ok := e.Tools(); ok {
		t.Fatal("empty cache has tools")
	}
	e.ListedTools([]ext.ToolEntry{tool("a"), tool("b")})
	e.ListedPrompts([]ext.CommandEntry{{Name: "p"}})
	e.ListedTemplates([]ext.ResourceTemplateEntry{{Name: "t", URITemplate: "x://{id}"}})

	got, listed, ok := s.Entry(key(1), "srv").Tools()
	if !ok || len(got) != 2 || got[1].Name != "b" || listed.IsZero() {
		t.Fatalf("Tools = %v, %v, %v", got, listed, ok)
	}
	m, err := s.Load(key(1))
	if err != nil || m == nil || m.Server != "srv" || len(m.Prompts) != 1 || len(m.Templates) != 1 {
		t.Fatalf("Load = %+v, %v", m, err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("folder: %v, %v", fi.Mode(), err)
	}
	fi, err = os.Stat(filepath.Join(dir, key(1)+".json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file: %v, %v", fi.Mode(), err)
	}
	// A server that lists no tools is cached as listing none, not as never listed.
	e2 := s.Entry(key(2), "empty")
	e2.ListedTools(nil)
	if got, _, ok := s.Entry(key(2), "empty").Tools(); !ok || len(got) != 0 {
		t.Fatalf("empty listing: %v, %v", got, ok)
	}
}

func TestEntryChangedListingReplaces(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	e := s.Entry(key(1), "srv")
	e.ListedTools([]ext.ToolEntry{tool("a")})
	e.ListedTools([]ext.ToolEntry{tool("a"), tool("c")})
	got, _, _ := s.Entry(key(1), "srv").Tools()
	if len(got) != 2 || got[1].Name != "c" {
		t.Fatalf("after a changed listing: %v", got)
	}
}

func TestStoreBoundedLeastRecentlyUsedOut(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir, &Options{MaxEntries: 3})
	base := time.Now().Add(-time.Hour)
	for i := range 3 {
		s.Entry(key(i), "s").ListedTools([]ext.ToolEntry{tool("t")})
		// Distinct ages without waiting: entry i was used at base+i minutes.
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, key(i)+".json"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	// Reading entry 0 makes it the most recently used: entry 1 goes when a fourth arrives.
	if _, _, ok := s.Entry(key(0), "s").Tools(); !ok {
		t.Fatal("entry 0 missing")
	}
	s.Entry(key(3), "s").ListedTools([]ext.ToolEntry{tool("t")})
	for i, want := range []bool{true, false, true, true} {
		if _, _, ok := s.Entry(key(i), "s").Tools(); ok != want {
			t.Errorf("entry %d present = %v, want %v", i, ok, want)
		}
	}

	// Bytes: a bound of about two files keeps two.
	dir2 := t.TempDir()
	big := []ext.ToolEntry{{Name: "t", Description: strings.Repeat("x", 1000)}}
	s2 := NewStore(dir2, &Options{MaxBytes: 2500})
	for i := range 5 {
		s2.Entry(key(i), "s").ListedTools(big)
		at := base.Add(time.Duration(i) * time.Minute)
		_ = os.Chtimes(filepath.Join(dir2, key(i)+".json"), at, at)
	}
	s2.Entry(key(9), "s").ListedTools(big)
	ents, _ := filepath.Glob(filepath.Join(dir2, "*.json"))
	var total int64
	for _, p := range ents {
		fi, _ := os.Stat(p)
		total += fi.Size()
	}
	if len(ents) != 2 || total > 2500 {
		t.Fatalf("kept %d files, %d bytes; want 2 within 2500", len(ents), total)
	}
	if _, _, ok := s2.Entry(key(9), "s").Tools(); !ok {
		t.Fatal("the newest entry was evicted")
	}
}

func TestStoreCorruptFileIgnoredOnceAndRewritten(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	s := NewStore(dir, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	p := filepath.Join(dir, key(1)+".json")
	if err := os.WriteFile(p, []byte(`{"server": "srv", "tools": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, ok := s.Entry(key(1), "srv").Tools(); ok {
			t.Fatal("corrupt file served")
		}
	}
	if n := strings.Count(logs.String(), "corrupt"); n != 1 {
		t.Fatalf("%d log lines about the corrupt file, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), p) {
		t.Fatalf("log does not name the file:\n%s", logs.String())
	}
	s.Entry(key(1), "srv").ListedTools([]ext.ToolEntry{tool("a")})
	if got, _, ok := s.Entry(key(1), "srv").Tools(); !ok || len(got) != 1 {
		t.Fatalf("not rewritten: %v %v", got, ok)
	}
}

func TestStoreConcurrentWritersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	// Separate Stores over one folder, as separate processes have: each writes its own kinds
	// of one shared entry and an entry of its own.
	for w := range 8 {
		wg.Go(func() {
			s := NewStore(dir, nil)
			for i := range 20 {
				shared := s.Entry(key(1000), "shared")
				switch w % 3 {
				case 0:
					shared.ListedTools([]ext.ToolEntry{tool("t")})
				case 1:
					shared.ListedPrompts([]ext.CommandEntry{{Name: "p"}})
				case 2:
					shared.ListedTemplates([]ext.ResourceTemplateEntry{{Name: "r", URITemplate: "r://{x}"}})
				}
				s.Entry(key(w), fmt.Sprint("own", w)).ListedTools([]ext.ToolEntry{tool(fmt.Sprint("t", i))})
			}
		})
	}
	wg.Wait()
	s := NewStore(dir, nil)
	m, err := s.Load(key(1000))
	if err != nil || m == nil || len(m.Tools) != 1 || len(m.Prompts) != 1 || len(m.Templates) != 1 {
		t.Fatalf("shared entry: %+v, %v", m, err)
	}
	for w := range 8 {
		got, _, ok := s.Entry(key(w), "x").Tools()
		if !ok || len(got) != 1 || got[0].Name != "t19" {
			t.Errorf("writer %d: %v %v", w, got, ok)
		}
	}
}

func TestStoreRejectsKeyThatIsNotADigest(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	if _, err := s.Load("../x"); err == nil {
		t.Fatal("a path as key was accepted")
	}
}
