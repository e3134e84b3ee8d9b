package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// TestProgramRunsATurn builds the program and runs it as a user would, with the repository's
// stdio MCP server: one turn in which the scripted model calls the server's tool through the
// session's agent, the events printed.
func TestProgramRunsATurn(t *testing.T) {
	server := testserver.Build(t)
	bin := filepath.Join(t.TempDir(), "library")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-server", server).CombinedOutput()
	if err != nil {
		t.Fatalf("library -server: %v\n%s", err, out)
	}
	for _, want := range []string{
		`[tool] server__echo {"text":"hello from the library"} (remote mcp://server)`,
		"[result] server__echo: hello from the library",
		"[end] done after 2 steps: The tool said: hello from the library",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// Without a server the model loads the skill.
	out, err = exec.Command(bin).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `[tool] load_skill {"name":"greeter"}`) || !strings.Contains(string(out), "Greet the user by name.") {
		t.Errorf("library without -server: %v\n%s", err, out)
	}
}

// TestREADMEShowsProgram: README.md's library section shows this program as it is.
func TestREADMEShowsProgram(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	const open = "```go\n// Command library"
	_, block, ok := strings.Cut(string(readme), open)
	block, _, closed := strings.Cut(block, "\n```\n")
	if !ok || !closed {
		t.Fatalf("README.md has no go block starting %q", open)
	}
	if got := "// Command library" + block + "\n"; got != string(src) {
		t.Errorf("README.md's copy of examples/library/main.go differs from the file: copy the file into the block")
	}
}
