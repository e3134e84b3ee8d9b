package main

import (
	"context"
	"encoding/json"
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
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cacheRun is one serve over the config cfg with the manifest cache in cache.
type cacheRun struct {
	pid     int
	url     string
	log     *syncBuffer
	stop    func()
	changed atomic.Int32 // tools/list_changed received by the run's client
	cs      *mcp.ClientSession
}

func startCacheRun(t *testing.T, cfg, cache string) *cacheRun {
	t.Helper()
	cmd, url, log := startServeIn(t, "", []string{"HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + cache},
		"--no-default-roots", "--log-level", "warn", "--config", cfg, "serve", "--http", "127.0.0.1:0")
	r := &cacheRun{pid: cmd.Process.Pid, url: url, log: log}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { r.changed.Add(1) },
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.cs = cs
	r.stop = func() {
		cs.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			waitExit(t, cmd, "serve after SIGTERM")
		}
	}
	return r
}

func (r *cacheRun) tools(t *testing.T) []string {
	t.Helper()
	res, err := r.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func (r *cacheRun) echo(t *testing.T, name, text string) {
	t.Helper()
	res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": text}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != text {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
}

// cacheFiles returns the manifest files in cache, by name, each parsed.
func cacheFiles(t *testing.T, cache string) map[string]map[string]any {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(cache, "agentpool", "manifests", "*.json"))
	out := map[string]map[string]any{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s does not parse: %v\n%s", p, err, data)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", p, fi.Mode().Perm())
		}
		out[p] = m
	}
	return out
}

// A lazy server without static tools, served twice with the same cache folder: the first
// serve starts it to list it and caches its tools; the second lists them with no server
// process running, and the first call starts it and works. When the live listing differs from
// the cached one, the client is told its tools changed.
func TestServeListsLazyServerFromCache(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  fault: {command: "+bin+", lazy: true}\n")

	first := startCacheRun(t, cfg, cache)
	if names := first.tools(t); !slices.Contains(names, "fault__echo") {
		t.Fatalf("first run: tools %v, want the fault server's", names)
	}
	first.stop()
	files := cacheFiles(t, cache)
	if len(files) != 1 {
		t.Fatalf("cache after the first run: %d files, want 1", len(files))
	}
	if fi, err := os.Stat(filepath.Join(cache, "agentpool", "manifests")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache folder: %v %v, want 0700", fi, err)
	}
	// The server has since gained a tool: the cached listing lacks count.
	var path string
	for p, m := range files {
		path = p
		tools := m["tools"].([]any)
		m["tools"] = slices.DeleteFunc(tools, func(x any) bool { return x.(map[string]any)["name"] == "count" })
		data, _ := json.Marshal(m)
		writeFile(t, p, string(data))
	}
	if strings.Contains(cacheText(t, path), `"count"`) {
		t.Fatal("count still cached")
	}

	second := startCacheRun(t, cfg, cache)
	defer second.stop()
	names := second.tools(t)
	if !slices.Contains(names, "fault__echo") || slices.Contains(names, "fault__count") {
		t.Fatalf("second run: tools %v, want the cached ones", names)
	}
	if n := serverProcesses(t, second.pid, bin); n != 0 {
		t.Fatalf("second run: %d fault server processes after listing, want none", n)
	}
	second.echo(t, "fault__echo", "from the cache")
	if n := serverProcesses(t, second.pid, bin); n != 1 {
		t.Fatalf("second run: %d fault server processes after the call, want 1", n)
	}
	testwait.For(t, "tools/list_changed once the live listing differs", func() bool { return second.changed.Load() > 0 })
	if names := second.tools(t); !slices.Contains(names, "fault__count") {
		t.Fatalf("second run after the call: tools %v, want the live ones", names)
	}
	testwait.For(t, "the cache updated with the live listing", func() bool {
		return strings.Contains(cacheText(t, path), `"count"`)
	})
}

// A corrupt cache file is ignored with one log line: the lazy server is started to be listed,
// and the file is rewritten.
func TestServeCorruptManifestIgnored(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  fault: {command: "+bin+", lazy: true}\n")
	first := startCacheRun(t, cfg, cache)
	first.tools(t)
	first.stop()
	var path string
	for p := range cacheFiles(t, cache) {
		path = p
	}
	writeFile(t, path, `{"server": "fault", "tools": [{"name": `)

	second := startCacheRun(t, cfg, cache)
	defer second.stop()
	if names := second.tools(t); !slices.Contains(names, "fault__echo") {
		t.Fatalf("tools %v, want the fault server's (started to be listed)", names)
	}
	second.tools(t)
	testwait.For(t, "the corrupt file rewritten", func() bool { return len(cacheFiles(t, cache)) == 1 })
	if n := strings.Count(second.log.String(), "corrupt"); n != 1 {
		t.Fatalf("%d log lines about the corrupt file, want 1:\n%s", n, second.log.String())
	}
}

// Two serve processes sharing a cache folder, each listing servers of its own and one they
// share, lose no entry and corrupt none.
func TestServeConcurrentManifestWriters(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	var cfgs []string
	for i := range 2 {
		cfg := filepath.Join(dir, fmt.Sprint("agentpool", i, ".yaml"))
		var b strings.Builder
		b.WriteString("mcp_servers:\n  shared: {command: " + bin + "}\n")
		for j := range 3 {
			fmt.Fprintf(&b, "  own%d_%d: {command: %s, args: [--extra-tool, t%d_%d]}\n", i, j, bin, i, j)
		}
		writeFile(t, cfg, b.String())
		cfgs = append(cfgs, cfg)
	}
	var wg sync.WaitGroup
	runs := make([]*cacheRun, 2)
	for i := range 2 {
		runs[i] = startCacheRun(t, cfgs[i], cache)
		defer runs[i].stop()
	}
	for _, r := range runs {
		wg.Go(func() {
			for range 3 {
				if _, err := r.cs.ListTools(context.Background(), nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	files := cacheFiles(t, cache)
	servers := map[string]int{}
	for _, m := range files {
		name, _ := m["server"].(string)
		tools, _ := m["tools"].([]any)
		servers[name] = len(tools)
	}
	if len(files) != 7 || len(servers) != 7 {
		t.Fatalf("cache holds %d files for servers %v, want 7", len(files), servers)
	}
	for name, n := range servers {
		if n == 0 {
			t.Errorf("server %s cached with no tools", name)
		}
	}
}

func cacheText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// compile says where a lazy server's tools come from: the first compile starts the server to
// list it (nothing cached), the next one lists it from the cache and says when it was listed.
func TestCompileShowsCachedLazyTools(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  fault: {command: "+bin+", lazy: true}\n  mine: {command: "+bin+", lazy: true, tools: [{name: echo}]}\n")
	compile := func(flags ...string) string {
		cmd := exec.Command("agentpool", append([]string{"--no-default-roots", "--config", cfg, "compile"}, flags...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("compile: %v\n%s", err, out)
		}
		return string(out)
	}
	type lazy struct {
		Name   string    `json:"name"`
		From   string    `json:"from"`
		Listed time.Time `json:"listed"`
	}
	lazyOf := func(out string) map[string]lazy {
		var v struct {
			LazyServers []lazy `json:"lazy_servers"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("compile --json: %v\n%s", err, out)
		}
		m := map[string]lazy{}
		for _, l := range v.LazyServers {
			m[l.Name] = l
		}
		return m
	}
	first := lazyOf(compile("--json"))
	if first["fault"].From != "server" || first["mine"].From != "static" {
		t.Fatalf("first compile: %+v, want fault from the server, mine static", first)
	}
	second := lazyOf(compile("--json"))
	if second["fault"].From != "cache" || second["fault"].Listed.IsZero() || second["mine"].From != "static" {
		t.Fatalf("second compile: %+v, want fault from the cache with its time, mine static", second)
	}
	text := compile()
	if !regexp.MustCompile(`(?m)^## lazy servers \(2\)\n(.*\n)*fault +tools from the cache, listed .* ago`).MatchString(text) {
		t.Fatalf("compile does not show fault's tools as cached:\n%s", text)
	}
}
