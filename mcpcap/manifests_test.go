package mcpcap

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/manifest"
	"github.com/agentpool/agentpool/pin"
)

// startMarked is the fault server started through sh, leaving a line in the returned file at
// every start.
func startMarked(t *testing.T) (connpool.ServerConfig, func() bool) {
	bin := testserver.Build(t)
	marks := filepath.Join(t.TempDir(), "starts")
	server := connpool.ServerConfig{Server: decl.Server{Command: "/bin/sh", Args: []string{"-c", `echo start >> "$0"; exec "$1"`, marks, bin}}}
	return server, func() bool {
		_, err := os.Stat(marks)
		return err == nil
	}
}

func toolNames(ts []ext.ToolEntry) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// A lazy server without static tools is listed from the manifest a previous run cached,
// without starting; the first call starts it, its live listing replaces the entry, and the
// Cap says its tools changed since they differ from the cached ones.
func TestLazyListsCachedManifest(t *testing.T) {
	ctx := context.Background()
	server, started := startMarked(t)
	store := manifest.NewStore(t.TempDir(), nil)
	entry := store.Entry(pin.Key("user", "fault", server.Server), "fault")
	cached := []ext.ToolEntry{
		{Name: "echo", Description: "cached echo", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "gone", Description: "a tool the server no longer lists"},
	}
	entry.ListedTools(cached)

	prefix := "fault__"
	c, err := New(Config{Name: "fault", Server: server, Lazy: true, Prefix: &prefix},
		WithPool(newPool(t), ""), WithManifests(store.Entry(pin.Key("user", "fault", server.Server), "fault")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	var rec recorder
	defer c.Observe(rec.add)()

	tools, err := c.Tools(ctx)
	if err != nil || !slices.Equal(toolNames(tools), []string{"fault__echo", "fault__gone"}) {
		t.Fatalf("tools = %v, %v; want the cached ones, prefixed", toolNames(tools), err)
	}
	if src := c.ToolsSource(); src.From != FromCache || src.Listed.IsZero() {
		t.Fatalf("ToolsSource = %+v, want the cache with its time", src)
	}
	if started() {
		t.Fatal("listing a lazy server from the cache started it")
	}
	res, err := c.CallTool(ctx, &ext.ToolCall{Name: "fault__echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	if err != nil || res.Content[0].Text != "x" {
		t.Fatalf("first call: %+v, %v", res, err)
	}
	if !started() {
		t.Fatal("the first call did not start the server")
	}
	if rec.count(ext.ToolsChanged) == 0 {
		t.Error("no tools_changed though the live listing differs from the cached one")
	}
	tools, err = c.Tools(ctx)
	if err != nil || slices.Contains(toolNames(tools), "fault__gone") || !slices.Contains(toolNames(tools), "fault__count") {
		t.Fatalf("tools after the call = %v, %v; want the server's", toolNames(tools), err)
	}
	if src := c.ToolsSource(); src.From != FromServer {
		t.Fatalf("ToolsSource after the call = %+v, want the server", src)
	}
	got, _, ok := store.Entry(pin.Key("user", "fault", server.Server), "fault").Tools()
	if !ok || slices.Contains(toolNames(got), "gone") || !slices.Contains(toolNames(got), "count") {
		t.Fatalf("cache after the live listing = %v, %v; want the server's tools", toolNames(got), ok)
	}

	// A tools list_changed of the server updates the entry at the next listing.
	if res, err := c.CallTool(ctx, &ext.ToolCall{Name: "fault__add_tool", Arguments: json.RawMessage(`{"name":"added"}`)}); err != nil || res.IsError {
		t.Fatalf("add_tool: %+v, %v", res, err)
	}
	testwait.For(t, "the added tool listed", func() bool {
		tools, err := c.Tools(ctx)
		return err == nil && slices.Contains(toolNames(tools), "fault__added")
	})
	got, _, _ = store.Entry(pin.Key("user", "fault", server.Server), "fault").Tools()
	if !slices.Contains(toolNames(got), "added") {
		t.Fatalf("cache after list_changed = %v; want the added tool", toolNames(got))
	}
}

// Static tools a user wrote win over a cached manifest; a lazy server with neither is started
// by its first listing (there is nothing else to list), and that listing, its prompts and its
// templates are cached.
func TestLazyStaticWinsAndUncachedStarts(t *testing.T) {
	ctx := context.Background()
	server, started := startMarked(t)
	store := manifest.NewStore(t.TempDir(), nil)
	key := pin.Key("user", "fault", server.Server)
	store.Entry(key, "fault").ListedTools([]ext.ToolEntry{{Name: "cached"}})

	static := newPoolCapOpts(t, Config{Name: "fault", Server: server, Lazy: true, Tools: []ext.ToolEntry{{Name: "mine"}}}, WithManifests(store.Entry(key, "fault")))
	if tools, err := static.Tools(ctx); err != nil || !slices.Equal(toolNames(tools), []string{"mine"}) {
		t.Fatalf("tools = %v, %v; want the static one", toolNames(tools), err)
	}
	if src := static.ToolsSource(); src.From != FromStatic {
		t.Fatalf("ToolsSource = %+v, want static", src)
	}

	// The declaration's secrets are not the server's listing: none reaches the file.
	const secret = "s3cr3t-token-value"
	server.Server.Env = map[string]string{"API_TOKEN": secret}
	key = pin.Key("user", "fault", server.Server)
	other := manifest.NewStore(t.TempDir(), nil)
	c := newPoolCapOpts(t, Config{Name: "fault", Server: server, Lazy: true}, WithManifests(other.Entry(key, "fault")))
	tools, err := c.Tools(ctx)
	if err != nil || !slices.Contains(toolNames(tools), "echo") {
		t.Fatalf("tools = %v, %v; want the server's", toolNames(tools), err)
	}
	if !started() {
		t.Fatal("an uncached lazy server without static tools was not started to be listed")
	}
	if _, err := c.ListCommands(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListResourceTemplates(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := other.Load(key)
	if err != nil || m == nil || !slices.Contains(toolNames(m.Tools), "echo") || len(m.Prompts) != 1 || m.Prompts[0].Name != "greet" || m.Templates == nil {
		t.Fatalf("cached manifest = %+v, %v; want the tools, the greet prompt and the (empty) templates", m, err)
	}
	if data, err := os.ReadFile(filepath.Join(other.Dir(), key+".json")); err != nil || strings.Contains(string(data), secret) {
		t.Fatalf("cache file: %v; holds the secret: %v", err, strings.Contains(string(data), secret))
	}
}

// What a pin guard keeps out of a listing is kept out of a listing served from the cache.
func TestCachedManifestIsGuarded(t *testing.T) {
	ctx := context.Background()
	server, started := startMarked(t)
	key := pin.Key("user", "fault", server.Server)
	store := manifest.NewStore(t.TempDir(), nil)
	book := pin.NewBook(pin.NewStore(t.TempDir()), nil, nil)
	// The pins hold echo as approved; the cache lists echo and a tool never approved.
	book.Guard(key, "fault", "user", pin.Block).Tools([]ext.ToolEntry{{Name: "echo", Description: "Echo."}})
	store.Entry(key, "fault").ListedTools([]ext.ToolEntry{{Name: "echo", Description: "Echo."}, {Name: "sneaky", Description: "New."}})

	c := newPoolCapOpts(t, Config{Name: "fault", Server: server, Lazy: true},
		WithManifests(store.Entry(key, "fault")), WithGuard(book.Guard(key, "fault", "user", pin.Block)))
	tools, err := c.Tools(ctx)
	if err != nil || !slices.Equal(toolNames(tools), []string{"echo"}) {
		t.Fatalf("tools = %v, %v; want echo only", toolNames(tools), err)
	}
	if err := c.BlockedTool("sneaky"); !errors.Is(err, pin.ErrBlocked) {
		t.Fatalf("BlockedTool(sneaky) = %v, want pin.ErrBlocked", err)
	}
	if started() {
		t.Fatal("listing from the cache started the server")
	}

	// Approving it lists it from the cache again, still without a start.
	pins := book.Store()
	if n, err := pins.Approve("fault", []string{"sneaky"}, time.Now()); err != nil || n != 1 {
		t.Fatalf("approve: %d, %v", n, err)
	}
	c.Recheck()
	tools, err = c.Tools(ctx)
	if err != nil || !slices.Equal(toolNames(tools), []string{"echo", "sneaky"}) {
		t.Fatalf("tools after the approval = %v, %v; want echo and sneaky", toolNames(tools), err)
	}
	if started() {
		t.Fatal("a recheck of cached tools started the server")
	}
}

func newPoolCapOpts(t *testing.T, cfg Config, opts ...Option) *Cap {
	t.Helper()
	c, err := New(cfg, append([]Option{WithPool(newPool(t), "")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// A call of a tool listed from the cache is checked against the live listing its start
// brings: a definition the server changed since, which the pins block, is not called.
func TestCachedToolCallGuardedByLiveListing(t *testing.T) {
	ctx := context.Background()
	server, started := startMarked(t)
	key := pin.Key("user", "fault", server.Server)
	store := manifest.NewStore(t.TempDir(), nil)
	book := pin.NewBook(pin.NewStore(t.TempDir()), nil, nil)
	// The pins and the cache hold an echo the live server no longer defines so.
	old := []ext.ToolEntry{{Name: "echo", Description: "Echo."}}
	book.Guard(key, "fault", "user", pin.Block).Tools(old)
	store.Entry(key, "fault").ListedTools(old)

	c := newPoolCapOpts(t, Config{Name: "fault", Server: server, Lazy: true},
		WithManifests(store.Entry(key, "fault")), WithGuard(book.Guard(key, "fault", "user", pin.Block)))
	if tools, err := c.Tools(ctx); err != nil || !slices.Equal(toolNames(tools), []string{"echo"}) {
		t.Fatalf("tools = %v, %v; want the cached echo", toolNames(tools), err)
	}
	res, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	if !started() {
		t.Fatal("the call did not start the server")
	}
	if !errors.Is(err, pin.ErrBlocked) {
		t.Fatalf("call of a tool whose live definition the pins block = %+v, %v; want pin.ErrBlocked", res, err)
	}
}
