package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/regfile"
	"github.com/google/go-cmp/cmp"
)

// writeFiles writes each name → text under dir, making folders as needed.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A Claude Desktop file and a VS Code file (tabs, comments, inputs, "type": "http") are read
// as they are: their servers become mcp_servers entries as if written in the YAML, ${VAR}
// expanded and cwd resolved against the JSON's folder; the YAML's own server wins a name both
// use, an earlier import wins over a later one, and each collision, ignored key and disabled
// server is a warning naming file, line and key. Declared keeps the imported ${VAR} as written.
func TestImportReadsIDEFiles(t *testing.T) {
	t.Setenv("AP_IMPORT_TOKEN", "tok")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agentpool.yaml": "mcp_servers:\n  github: {command: gh}\nimport:\n  - claude.json\n  - .vscode/mcp.json\n",
		"claude.json": `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
    "fs": {
      "command": "node",
      "args": ["fs.js", "${AP_IMPORT_TOKEN}"],
      "env": {"TOKEN": "${AP_IMPORT_TOKEN}"},
      "cwd": "tools",
      "autoApprove": ["read_file"],
      "timeout": 60
    },
    "off": {"command": "x", "disabled": true},
    "on": {"command": "y", "disabled": false}
  }
}
`,
		".vscode/mcp.json": "{\n\t// VS Code writes comments /* and these */\n\t\"inputs\": [{\"id\": \"key\", \"type\": \"promptString\"}],\n\t\"servers\": {\n" +
			"\t\t\"web\": {\"type\": \"http\", \"url\": \"https://h.example/mcp\", \"headers\": {\"X\": \"${AP_IMPORT_TOKEN}\"}},\n" +
			"\t\t\"events\": {\"type\": \"sse\", \"url\": \"https://h.example/sse\"},\n" +
			"\t\t\"fs\": {\"type\": \"stdio\", \"command\": \"other\", \"envFile\": \"${workspaceFolder}/.env\"},\n" +
			"\t}\n}\n",
	})
	cfg, err := Load(filepath.Join(dir, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.MCPServers.Names(), []string{"events", "fs", "github", "on", "web"}; !slices.Equal(got, want) {
		t.Fatalf("servers %v, want %v", got, want)
	}
	fs := cfg.MCPServers["fs"]
	if fs.Type != "stdio" || fs.Command != "node" || !slices.Equal(fs.Args, []string{"fs.js", "tok"}) ||
		fs.Env["TOKEN"] != "tok" || fs.Cwd != filepath.Join(dir, "tools") || fs.Timeout != time.Minute {
		t.Errorf("fs = %+v %v %v %s %s", fs, fs.Args, fs.Env, fs.Cwd, fs.Timeout)
	}
	if web := cfg.MCPServers["web"]; web.Type != "streamable-http" || web.Headers["X"] != "tok" {
		t.Errorf("web = %v %v", web, web.Headers)
	}
	if ev := cfg.MCPServers["events"]; ev.Type != "sse" {
		t.Errorf("events = %v", ev)
	}
	if gh := cfg.MCPServers["github"]; gh.Command != "gh" {
		t.Errorf("github = %v: the YAML's own server must win", gh)
	}
	for name, want := range map[string]string{"fs": "claude.json", "web": filepath.Join(".vscode", "mcp.json"), "github": "agentpool.yaml"} {
		if got := cfg.Source(name); got != filepath.Join(dir, want) {
			t.Errorf("Source(%s) = %s, want %s", name, got, filepath.Join(dir, want))
		}
	}
	claude, vscode := filepath.Join(dir, "claude.json"), filepath.Join(dir, ".vscode", "mcp.json")
	wantWarnings := []string{
		claude + ":10:7: mcpServers.fs.autoApprove: ignored",
		claude + ":13:29: mcpServers.off: disabled: not imported",
		vscode + ":7:47: servers.fs.envFile: ignored: agentpool reads no env file",
		claude + ":4:5: mcpServers.github: not imported: " + filepath.Join(dir, "agentpool.yaml") + " declares mcp_servers.github, which wins",
		vscode + ":7:3: servers.fs: not imported: " + claude + ", imported before, declares it, and wins",
	}
	if len(cfg.Warnings) != len(wantWarnings) {
		t.Errorf("warnings:\n%s", strings.Join(cfg.Warnings, "\n"))
	}
	for _, w := range wantWarnings {
		if !slices.ContainsFunc(cfg.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("no warning %q in:\n%s", w, strings.Join(cfg.Warnings, "\n"))
		}
	}
	d := cfg.Declared()
	if got := d["fs"]; got.Env["TOKEN"] != "${AP_IMPORT_TOKEN}" || got.Args[1] != "${AP_IMPORT_TOKEN}" || got.Cwd != filepath.Join(dir, "tools") {
		t.Errorf("Declared fs = %v %v %s: want the references as written, the path resolved", got.Args, got.Env, got.Cwd)
	}
	if diff := cmp.Diff(cfg.MCPServers.Names(), d.Names()); diff != "" {
		t.Errorf("Declared names differ from MCPServers (-have +declared):\n%s", diff)
	}
	if d["github"].Command != "gh" {
		t.Errorf("Declared github = %v, want the YAML's", d["github"])
	}
}

// An import path takes ~ and ${VAR} as the config's other paths do.
func TestImportPathExpanded(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("AP_IMPORT_DIR", dir)
	writeFiles(t, home, map[string]string{".cursor/mcp.json": `{"mcpServers": {"a": {"command": "x"}}}`})
	writeFiles(t, dir, map[string]string{"mcp.json": `{"mcpServers": {"b": {"url": "http://127.0.0.1:1/mcp"}}}`})
	cfg, err := Parse(filepath.Join(t.TempDir(), "agentpool.yaml"), []byte("import: [~/.cursor/mcp.json, '${AP_IMPORT_DIR}/mcp.json']\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.MCPServers.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("servers %v", got)
	}
}

// Every problem of every imported file is reported at once, with the YAML's own, each naming
// its file, line and key.
func TestImportAllErrorsTogether(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"one.json": "{\"mcpServers\": {\n  \"a\": {\"url\": \"ftp://h\"},\n  \"b\": {\"command\": \"x\", \"lazy\": \"yes\"}\n}}\n",
		"two.json": "{\"servers\": {\n  \"c\": {\"type\": \"websocket\"}\n}}\n",
	})
	_, err := Parse(filepath.Join(dir, "agentpool.yaml"), []byte("pool: {max_clients: -1}\nimport: [one.json, two.json, three.json]\n"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"agentpool.yaml:1:21: pool.max_clients: must not be negative",
		"agentpool.yaml:2:30: import[2]: ",
		"one.json:2:16: mcpServers.a.url: must be an http or https URL",
		"one.json:3:33: mcpServers.b.lazy: want true or false",
		"two.json:2:17: servers.c.type: unknown type \"websocket\"",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// Imports are bounded like the config itself: a named pipe is refused at once (never opened
// the blocking way), a file over MaxFileSize is refused, and at most MaxImports files may be
// listed.
func TestImportBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "mcp.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	yamlPath := filepath.Join(dir, "agentpool.yaml")
	within(t, func() {
		_, err := Parse(yamlPath, []byte("import: [mcp.json]\n"))
		if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "agentpool.yaml:1:10: import[0]: ") {
			t.Errorf("import of a named pipe: %v", err)
		}
	})
	big := `{"mcpServers": {}, "pad": "` + strings.Repeat("x", MaxFileSize) + `"}`
	writeFiles(t, dir, map[string]string{"big.json": big})
	if _, err := Parse(yamlPath, []byte("import: [big.json]\n")); !errors.Is(err, regfile.ErrTooLarge) {
		t.Errorf("import of a file over the cap: %v", err)
	}
	var many []string
	for i := range MaxImports + 1 {
		name := fmt.Sprintf("m%d.json", i)
		writeFiles(t, dir, map[string]string{name: `{"mcpServers": {}}`})
		many = append(many, name)
	}
	_, err := Parse(yamlPath, []byte("import: ["+strings.Join(many, ", ")+"]\n"))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("import[%d]: at most %d files", MaxImports, MaxImports)) {
		t.Errorf("%d imports: %v", MaxImports+1, err)
	}
}

// An imported stdio server is held to extensions.allowed_commands like the YAML's own, the
// problem named in the JSON file.
func TestImportAllowedCommands(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"mcp.json": "{\"mcpServers\": {\n  \"a\": {\"command\": \"sh\"}\n}}\n"})
	_, err := Parse(filepath.Join(dir, "agentpool.yaml"), []byte("extensions: {allowed_commands: []}\nimport: [mcp.json]\n"))
	if err == nil || !strings.Contains(err.Error(), "mcp.json:2:") || !strings.Contains(err.Error(), "mcpServers.a") {
		t.Errorf("err = %v, want the imported command refused at mcp.json:2", err)
	}
}

// A JSON file may open with a comment, as VS Code's files often do ("// See https://…"), line or
// block: it is read as JSON with comments, not refused as YAML that does not parse.
func TestImportLeadingComment(t *testing.T) {
	for name, text := range map[string]string{
		"line":  "// See https://code.visualstudio.com/docs/copilot/chat/mcp-servers\n{\n  \"servers\": {\"a\": {\"command\": \"x\", \"args\": [\"http://h//p\"]}}\n}\n",
		"block": "/* agentpool's servers */ {\"servers\": {\"a\": {\"command\": \"x\", \"args\": [\"http://h//p\"]}}}\n",
		"bom":   "\ufeff  // a comment\r\n{\"servers\": {\"a\": {\"command\": \"x\", \"args\": [\"http://h//p\"]}}}\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"agentpool.yaml": "import: [mcp.json]\n", "mcp.json": text})
			cfg, err := Load(filepath.Join(dir, "agentpool.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if a := cfg.MCPServers["a"]; a.Command != "x" || !slices.Equal(a.Args, []string{"http://h//p"}) {
				t.Errorf("a = %v %q", a, a.Args)
			}
		})
	}
	// And a problem after the comment is still at its own line and column.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agentpool.yaml": "import: [mcp.json]\n",
		"mcp.json": "// c\n{\"servers\": {\"a\": {\n  \"comand\": \"x\", \"url\": \"ftp://h\"}}}\n"})
	_, err := Load(filepath.Join(dir, "agentpool.yaml"))
	if want := "mcp.json:3:25: servers.a.url: must be an http or https URL"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// ImportsOf says which files a refused config imports, so that a reload follows them: a file
// with an error, one missing; nothing for a config refused before its import key was read.
func TestImportsOfRefusedConfig(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agentpool.yaml": "import: [bad.json, missing.json]\n",
		"bad.json":       `{"servers": {"a": {"comand": "x"}}}`,
		"broken.yaml":    "import: [bad.json\n",
	})
	_, err := Load(filepath.Join(dir, "agentpool.yaml"))
	if want := []string{filepath.Join(dir, "bad.json"), filepath.Join(dir, "missing.json")}; !slices.Equal(ImportsOf(err), want) {
		t.Errorf("ImportsOf(%v) = %q, want %q", err, ImportsOf(err), want)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refusal no longer wraps the missing file's error: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "broken.yaml")); err == nil || ImportsOf(err) != nil {
		t.Errorf("ImportsOf(%v) = %q, want nil", err, ImportsOf(err))
	}
}
