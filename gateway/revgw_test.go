package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCloseDuringOpen: Close while a session is still opening (its OpenSession running, as
// for a slow npx start at SIGTERM) must not end the session half-built while open goes on:
// the initialize is refused, CloseSession runs after OpenSession, and nothing of the session
// (its watch goroutine: goleak) is left.
func TestCloseDuringOpen(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var opened, closedAfterOpen bool
	var first string // the session held opening; others are the probes below, opened at once
	var f *fixture
	f = newFixture(t, func(o *gateway.Options) {
		open, closeSession := o.OpenSession, o.CloseSession
		o.OpenSession = func(ctx context.Context, id string) error {
			mu.Lock()
			held := first == ""
			if held {
				first = id
			}
			mu.Unlock()
			if !held {
				return open(ctx, id)
			}
			close(entered)
			<-release
			err := open(ctx, id)
			mu.Lock()
			opened = true
			mu.Unlock()
			return err
		}
		o.CloseSession = func(ctx context.Context, id string) error {
			mu.Lock()
			if opened && id == first {
				closedAfterOpen = true
			}
			mu.Unlock()
			return closeSession(ctx, id)
		}
	})
	type answer struct {
		status int
		msgs   []map[string]any
	}
	got := make(chan answer, 1)
	go func() {
		status, _, msgs := post(t, f.url, "", initBody, nil)
		got <- answer{status, msgs}
	}()
	<-entered
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		closed <- f.g.Close(ctx)
	}()
	// Close takes the sessions to end, the opening one among them, when it starts refusing
	// new ones: a refused initialize says it has.
	testwait.For(t, "Close to refuse a new session", func() bool {
		status, _, msgs := post(t, f.url, "", initBody, nil)
		return status != http.StatusOK || rpcError(msgs) != nil
	})
	close(release)
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	a := <-got
	if a.status == http.StatusOK && rpcError(a.msgs) == nil {
		t.Errorf("an initialize opening during Close succeeded: %v", a.msgs)
	}
	if n := f.g.Sessions(); n != 0 {
		t.Errorf("Sessions() = %d after Close", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !closedAfterOpen {
		t.Error("CloseSession did not run after the session's OpenSession: its servers outlive it")
	}
}

// TestSkillsListSymlinkedFolder: a skill holding a symlink to a folder (its own, or one
// outside it) still lists its files; the link is no file of it (not followed, as the walk
// is not), rather than turning the whole entry "dynamic".
func TestSkillsListSymlinkedFolder(t *testing.T) {
	f := newFixture(t, nil)
	dir := filepath.Join(t.TempDir(), "linked")
	if err := os.MkdirAll(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: linked\ndescription: A skill with a linked folder.\n---\nSee real/a.md.\n"
	for name, body := range map[string]string{"SKILL.md": md, "real/a.md": "a\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, filepath.Join(f.skills, "linked")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs, err := sepClient(t).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var got *sepGetResult
	testwait.For(t, "skills/get of linked", func() bool {
		got, err = mcp.CallCustomMethod[*sepGetParams, *sepGetResult](ctx, cs, "skills/get", &sepGetParams{URI: "skill://linked/SKILL.md"})
		return err == nil
	})
	var files []sepFile
	if err := json.Unmarshal(got.Skill.Resources, &files); err != nil {
		t.Fatalf("resources = %s, want the skill's files: %v", got.Skill.Resources, err)
	}
	var uris []string
	for _, f := range files {
		uris = append(uris, f.URI)
	}
	slices.Sort(uris)
	if want := []string{"skill://linked/SKILL.md", "skill://linked/real/a.md"}; !slices.Equal(uris, want) {
		t.Errorf("files = %v, want %v", uris, want)
	}
}

// TestTokenSchemeCaseInsensitive: the authentication scheme is a case-insensitive token
// (RFC 9110 §11.1): "bearer" and "BEARER" carry the token as "Bearer" does; a wrong or
// empty token is still refused.
func TestTokenSchemeCaseInsensitive(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Token = "s3cret" })
	for _, h := range []string{"bearer s3cret", "BEARER s3cret", "Bearer  s3cret"} {
		if status, _, msgs := post(t, f.url, "", initBody, map[string]string{"Authorization": h}); status != http.StatusOK || rpcError(msgs) != nil {
			t.Errorf("Authorization %q: %d %v, want the session opened", h, status, msgs)
		}
	}
	for _, h := range []string{"bearer s3cre", "bearer", "Bearer ", "Basic s3cret", "s3cret"} {
		if status, _, _ := post(t, f.url, "", initBody, map[string]string{"Authorization": h}); status != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", h, status)
		}
	}
}

// TestSessionIDBoundToItsPath: agent a's session id used at /mcp or at agent b's path
// reaches nothing there (404 for POST, GET and DELETE), and a's session is not disturbed.
func TestSessionIDBoundToItsPath(t *testing.T) {
	bin := testserver.Build(t)
	url := agentsFixture(t, "mcp_servers:\n  shared: {command: "+bin+"}\nagents:\n  a:\n    mcp_servers:\n      mine: {command: "+bin+", scope: session}\n  b: {}\n", nil)
	csA, _ := connect(t, url+"/mcp/agents/a", nil)
	connect(t, url+"/mcp/agents/b", nil)
	connect(t, url+"/mcp", nil)
	for _, path := range []string{"/mcp", "/mcp/agents/b"} {
		status, _, msgs := post(t, url+path, csA.ID(), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mine__echo","arguments":{"text":"x"}}}`, nil)
		if status != http.StatusNotFound {
			t.Errorf("POST %s with a's session: %d %v, want 404", path, status, msgs)
		}
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			req, _ := http.NewRequest(method, url+path, nil)
			req.Header.Set("Mcp-Session-Id", csA.ID())
			req.Header.Set("Accept", "text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s with a's session: %d, want 404", method, path, resp.StatusCode)
			}
		}
	}
	if got := call(t, csA, "mine__echo", map[string]any{"text": "still"}); got != "still" {
		t.Errorf("a's session after: echo = %q", got)
	}
}

// TestSkillsGetAtFileLimit: a skill of exactly 512 files (SEP-2640's limit) is within it and
// lists them; one more file makes it "dynamic".
func TestSkillsGetAtFileLimit(t *testing.T) {
	f := newFixture(t, nil)
	dir := filepath.Join(t.TempDir(), "many")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: many\ndescription: A skill of many files.\n---\nMany.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 512; i++ {
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".md"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(dir, filepath.Join(f.skills, "many")); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(f.skills, "many")
	ctx := context.Background()
	cs, err := sepClient(t).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	get := func() json.RawMessage {
		var got *sepGetResult
		testwait.For(t, "skills/get of many", func() bool {
			got, err = mcp.CallCustomMethod[*sepGetParams, *sepGetResult](ctx, cs, "skills/get", &sepGetParams{URI: "skill://many/SKILL.md"})
			return err == nil
		})
		return got.Skill.Resources
	}
	var files []sepFile
	if res := get(); json.Unmarshal(res, &files) != nil || len(files) != 512 {
		t.Errorf("512 files: resources = %.80s… (%d files), want the 512 files", res, len(files))
	}
	if err := os.WriteFile(filepath.Join(dir, "f512.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := get(); string(res) != `"dynamic"` {
		t.Errorf("513 files: resources = %.80s…, want \"dynamic\"", res)
	}
}
