package host

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFollow: a Follower reloads the host when the config file is replaced (as an editor
// saves), refuses a file with a problem (reporting every line, changing nothing), follows
// the files the config imports, and reloads on demand (SIGHUP's way, wired by the caller).
// It stops at Close.
func TestFollow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	imported := filepath.Join(dir, "servers.json")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path+".tmp", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
	}
	write(imported, `{"mcpServers": {"imp": {"url": "http://127.0.0.1:1/mcp"}}}`)
	write(path, "import: [servers.json]\nmcp_servers:\n  a: {url: \"http://127.0.0.1:1/mcp\"}\n")
	h := buildHost(t, path, "", Options{})
	reports := make(chan FollowReport, 16)
	f, err := h.Follow(context.Background(), FollowOptions{Path: path, Debounce: 20 * time.Millisecond,
		OnReload: func(r FollowReport) { reports <- r }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	next := func(what string) FollowReport {
		t.Helper()
		select {
		case r := <-reports:
			return r
		case <-time.After(30 * time.Second):
			t.Fatalf("no reload after %s", what)
			return FollowReport{}
		}
	}
	servers := func() []string {
		var names []string
		for _, c := range h.Current().Servers {
			names = append(names, c.Name())
		}
		slices.Sort(names)
		return names
	}

	write(path, "import: [servers.json]\nmcp_servers:\n  a: {url: \"http://127.0.0.1:1/mcp\"}\n  b: {url: \"http://127.0.0.1:1/mcp\"}\n")
	r := next("adding b")
	if !r.OK || r.Trigger != "file" || r.File != path || !slices.Equal(r.Result.Added, []string{"mcp_servers.b"}) {
		t.Fatalf("adding b: %+v", r)
	}
	if got := servers(); !slices.Equal(got, []string{"a", "b", "imp"}) {
		t.Errorf("servers after adding b: %v", got)
	}

	write(path, "mcp_servers:\n  a: {urll: x}\n")
	r = next("a bad file")
	if r.OK || len(r.Errors) == 0 || !strings.Contains(strings.Join(r.Errors, "\n"), "urll") {
		t.Fatalf("a bad file: %+v", r)
	}
	if got := servers(); !slices.Equal(got, []string{"a", "b", "imp"}) || f.Last().OK {
		t.Errorf("after a refused file: servers %v, last %+v", got, f.Last())
	}

	write(path, "import: [servers.json]\nmcp_servers:\n  a: {url: \"http://127.0.0.1:1/mcp\"}\n")
	if r = next("the file fixed"); !r.OK || !slices.Equal(r.Result.Removed, []string{"mcp_servers.b"}) {
		t.Fatalf("the file fixed: %+v", r)
	}
	write(imported, `{"mcpServers": {"imp": {"url": "http://127.0.0.1:2/mcp"}}}`)
	if r = next("an edit of the imported file"); !r.OK || !slices.Equal(r.Result.Changed, []string{"mcp_servers.imp"}) {
		t.Fatalf("an edit of the imported file: %+v", r)
	}

	if r = f.Reload("SIGHUP"); !r.OK || r.Trigger != "SIGHUP" || !r.Result.Empty() {
		t.Errorf("a reload on demand of the same file: %+v", r)
	}
	<-reports
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if r := f.Reload("SIGHUP"); r.Trigger != "SIGHUP" || r.At != f.Last().At {
		t.Errorf("a reload after Close was tried: %+v", r)
	}
}

// TestFollowRelativePath: a config file named relative to the working directory is followed
// as one named by its absolute path: an edit of it reloads the host.
func TestFollowRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile("agentpool.yaml.tmp", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename("agentpool.yaml.tmp", "agentpool.yaml"); err != nil {
			t.Fatal(err)
		}
	}
	write("mcp_servers:\n  a: {url: \"http://127.0.0.1:1/mcp\"}\n")
	h := buildHost(t, "agentpool.yaml", "", Options{})
	reports := make(chan FollowReport, 16)
	f, err := h.Follow(context.Background(), FollowOptions{Path: "agentpool.yaml", Debounce: 20 * time.Millisecond,
		OnReload: func(r FollowReport) { reports <- r }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write("mcp_servers:\n  a: {url: \"http://127.0.0.1:1/mcp\"}\n  b: {url: \"http://127.0.0.1:1/mcp\"}\n")
	select {
	case r := <-reports:
		if !r.OK || !slices.Equal(r.Result.Added, []string{"mcp_servers.b"}) {
			t.Fatalf("adding b: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after an edit of the config file named by a relative path")
	}
}
