package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// Through a real serve in search mode, the TypeScript SDK's client lists load_skill and the
// search and call tools only; a request in words that needs an upstream tool finds it, the
// search activates it (tools/list_changed, and the tool is listed), and the call works by the
// activated name and through the call tool.
func TestSearchModeTypeScriptClient(t *testing.T) {
	t.Parallel()
	node := tsClient(t)[0]
	everything, memory := testserver.NPMBin(t, "mcp-server-everything"), testserver.NPMBin(t, "mcp-server-memory")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), `
mcp_servers:
  everything: {command: `+everything+`}
  memory:
    command: `+memory+`
    env: {MEMORY_FILE_PATH: `+filepath.Join(dir, "memory.jsonl")+`}
server:
  tools: {mode: search}
`)
	writeFile(t, filepath.Join(dir, "skills", "wave", "SKILL.md"), "---\nname: wave\ndescription: Waves.\n---\nWave.\n")
	url, _ := startServeHTTP(t, dir, "--no-default-roots", "--skills-dir", filepath.Join(dir, "skills"), "--config", filepath.Join(dir, "agentpool.yaml"))
	cmd := exec.Command(node, filepath.Join(repoRoot(t), "testdata", "clientmatrix", "search.mjs"), "--http", url,
		"--query", "create new entities in the knowledge graph",
		"--args", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`,
		"--args2", `{"entities":[{"name":"Grace","entityType":"person","observations":["wrote the first compiler"]}]}`)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var r struct {
		Listed, Found, Relisted []string
		ListChanged             int `json:"list_changed"`
		Direct, Through, Error  string
	}
	if jerr := json.Unmarshal(out, &r); jerr != nil || err != nil || r.Error != "" {
		t.Fatalf("search.mjs: %v %v %s\n%s", err, jerr, r.Error, out)
	}
	if want := []string{"call_tool", "load_skill", "search_tools"}; !slices.Equal(r.Listed, want) {
		t.Errorf("listed %v, want %v", r.Listed, want)
	}
	if len(r.Found) == 0 || r.Found[0] != "memory__create_entities" {
		t.Fatalf("found %v, want memory__create_entities first", r.Found)
	}
	if r.ListChanged == 0 || !slices.Contains(r.Relisted, "memory__create_entities") || len(r.Relisted) != 3+len(r.Found) {
		t.Errorf("after the search: %d list_changed, listed %v", r.ListChanged, r.Relisted)
	}
	for name, got := range map[string]string{"Ada": r.Direct, "Grace": r.Through} {
		if !strings.Contains(got, name) || strings.Contains(got, "isError") {
			t.Errorf("memory__create_entities of %s answered %q", name, got)
		}
	}
}

// chat offers the model tools by server.tools: in search mode the search and call tools and
// load_skill, not every upstream tool.
func TestChatSearchMode(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	cfg, err := os.ReadFile(f.config)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.config, string(cfg)+"server:\n  tools: {mode: search}\n")
	cmd := exec.Command("agentpool", f.args()...)
	cmd.Env, cmd.Dir, cmd.Stdin = f.env, t.TempDir(), strings.NewReader("hello\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "ok: hello") {
		t.Fatalf("chat: %v\n%s", err, out)
	}
	reqs := requests(t, f.model)
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	var offered []string
	for _, tool := range reqs[0].Tools {
		offered = append(offered, tool.Function.Name)
	}
	for _, want := range []string{"search_tools", "call_tool", "load_skill"} {
		if !slices.Contains(offered, want) {
			t.Errorf("the model was not offered %s: %v", want, offered)
		}
	}
	if slices.Contains(offered, "fault__echo") {
		t.Errorf("search mode offered the upstream tools: %v", offered)
	}
}
