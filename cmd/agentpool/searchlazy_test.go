package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// A lazy server without static tools whose manifest an earlier serve cached: through a real
// serve in search mode the TypeScript SDK's client finds its tool with no server process
// running, and the call starts the server, whether the first call is by the activated name
// or through the call tool.
func TestSearchModeLazyServerFromCache(t *testing.T) {
	t.Parallel()
	node := tsClient(t)[0]
	memory := testserver.NPMBin(t, "mcp-server-memory")
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, `
mcp_servers:
  memory:
    command: `+memory+`
    lazy: true
    env: {MEMORY_FILE_PATH: `+filepath.Join(dir, "memory.jsonl")+`}
server:
  tools: {mode: search}
`)
	first := startCacheRun(t, cfg, cache)
	first.tools(t)
	first.stop()
	if files := cacheFiles(t, cache); len(files) != 1 {
		t.Fatalf("cache after the first serve: %d files, want 1", len(files))
	}

	for i, throughFirst := range []bool{false, true} {
		cmd, url, _ := startServeIn(t, "", []string{"HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + cache},
			"--no-default-roots", "--log-level", "warn", "--config", cfg, "serve", "--http", "127.0.0.1:0")
		serve := cmd.Process.Pid
		direct, through := fmt.Sprint("Ada", i), fmt.Sprint("Grace", i)
		entity := func(name string) string {
			return `{"entities":[{"name":"` + name + `","entityType":"person","observations":["programmer"]}]}`
		}
		args := []string{filepath.Join(repoRoot(t), "testdata", "clientmatrix", "search.mjs"), "--http", url, "--pause",
			"--query", "create new entities in the knowledge graph", "--args", entity(direct), "--args2", entity(through)}
		if throughFirst {
			args = append(args, "--through-first")
		}
		client := exec.Command(node, args...)
		client.Stderr = os.Stderr
		stdin, err := client.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := client.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := client.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		if !lines.Scan() || lines.Text() != "searched" {
			_ = client.Process.Kill()
			_ = client.Wait()
			t.Fatalf("search.mjs (through first %v) did not pause after the search: %q", throughFirst, lines.Text())
		}
		if n := memoryProcesses(t, serve, memory); n != 0 {
			t.Errorf("through first %v: %d memory server processes after the search, want none", throughFirst, n)
		}
		stdin.Write([]byte("go\n"))
		lines.Scan()
		out := lines.Text()
		err = client.Wait()
		var r struct {
			Found, Relisted        []string
			ListChanged            int `json:"list_changed"`
			Direct, Through, Error string
		}
		if jerr := json.Unmarshal([]byte(out), &r); jerr != nil || err != nil || r.Error != "" {
			t.Fatalf("search.mjs (through first %v): %v %v %s\n%s", throughFirst, err, jerr, r.Error, out)
		}
		if len(r.Found) == 0 || r.Found[0] != "memory__create_entities" {
			t.Fatalf("through first %v: found %v, want memory__create_entities first", throughFirst, r.Found)
		}
		if r.ListChanged == 0 || !slices.Contains(r.Relisted, "memory__create_entities") {
			t.Errorf("through first %v: after the search: %d list_changed, listed %v", throughFirst, r.ListChanged, r.Relisted)
		}
		for name, got := range map[string]string{direct: r.Direct, through: r.Through} {
			if !strings.Contains(got, name) || strings.Contains(got, "isError") {
				t.Errorf("through first %v: memory__create_entities of %s answered %q", throughFirst, name, got)
			}
		}
		if n := memoryProcesses(t, serve, memory); n != 1 {
			t.Errorf("through first %v: %d memory server processes after the calls, want 1", throughFirst, n)
		}
	}
}

// memoryProcesses counts the children of pid running the script bin (an npm server: its
// executable is node, so the command line names it).
func memoryProcesses(t *testing.T, pid int, bin string) int {
	t.Helper()
	n := 0
	for _, c := range childrenOf(t, pid) {
		if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c)); err == nil && strings.Contains(string(cmdline), bin) {
			n++
		}
	}
	return n
}
