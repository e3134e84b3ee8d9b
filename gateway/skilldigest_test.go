package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listFiles calls skills/list and returns the files of skill uri, by file URI.
func listFiles(t *testing.T, cs *mcp.ClientSession, uri string) map[string]sepFile {
	t.Helper()
	list, err := mcp.CallCustomMethod[*sepListParams, *sepListResult](context.Background(), cs, "skills/list", &sepListParams{})
	if err != nil {
		t.Fatalf("skills/list: %v", err)
	}
	for _, s := range list.Skills {
		if s.URI != uri {
			continue
		}
		var files []sepFile
		if err := json.Unmarshal(s.Resources, &files); err != nil {
			t.Fatalf("%s: resources %s: %v", uri, s.Resources, err)
		}
		out := map[string]sepFile{}
		for _, f := range files {
			out[f.URI] = f
		}
		return out
	}
	t.Fatalf("skills/list has no %s", uri)
	return nil
}

// TestSkillsListDigestsCached: a second skills/list, from another session too, reads no
// unchanged file again for its digest (the digest is kept by the file's identity, size and
// modification time); a file edited since is read again and listed with its new digest.
func TestSkillsListDigestsCached(t *testing.T) {
	counts, restore := gateway.CountDigestReads(nil)
	defer restore()
	f := newFixture(t, nil)
	ctx := context.Background()
	connect := func() *mcp.ClientSession {
		cs, err := sepClient(t).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	const notes = "skill://greet/notes.md"
	first := listFiles(t, connect(), "skill://greet/SKILL.md")
	if counts()[notes] != 1 {
		t.Fatalf("first skills/list read notes.md %d times, want 1", counts()[notes])
	}
	again := listFiles(t, connect(), "skill://greet/SKILL.md")
	if n := counts()[notes]; n != 1 {
		t.Errorf("a second skills/list read the unchanged notes.md again (%d reads)", n)
	}
	if again[notes] != first[notes] {
		t.Errorf("cached entry %+v, first %+v", again[notes], first[notes])
	}

	// An edit of the same size: the modification time tells it apart.
	path := filepath.Join(f.skills, "greet", "notes.md")
	body := "NOTES OF GREET\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second) // a coarse file system clock would not tell
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	edited := listFiles(t, connect(), "skill://greet/SKILL.md")
	sum := sha256.Sum256([]byte(body))
	if want := "sha256:" + hex.EncodeToString(sum[:]); edited[notes].Digest != want || edited[notes].Size != int64(len(body)) {
		t.Errorf("after the edit: %+v, want digest %s", edited[notes], want)
	}
	if n := counts()[notes]; n != 2 {
		t.Errorf("reads of notes.md after the edit: %d, want 2", n)
	}
}

// TestSkillsListBounded: skills/list calls of many sessions at once compute at most
// MaxSkillListings listings at a time; the others wait their turn and all answer.
func TestSkillsListBounded(t *testing.T) {
	var inside, most atomic.Int32
	release := make(chan struct{})
	_, restore := gateway.CountDigestReads(func() {
		n := inside.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		inside.Add(-1)
	})
	defer restore()
	f := newFixture(t, nil)
	ctx := context.Background()
	const calls = gateway.MaxSkillListings + 4
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		cs, err := sepClient(t).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := mcp.CallCustomMethod[*sepListParams, *sepListResult](ctx, cs, "skills/list", &sepListParams{})
			errs <- err
		}()
	}
	testwait.For(t, "the bound's worth of listings to be reading", func() bool { return inside.Load() >= gateway.MaxSkillListings })
	time.Sleep(100 * time.Millisecond) // room for a listing beyond the bound to start, were there none
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("skills/list: %v", err)
		}
	}
	if m := most.Load(); m > gateway.MaxSkillListings {
		t.Errorf("%d listings read at once, want at most %d", m, gateway.MaxSkillListings)
	}
}
