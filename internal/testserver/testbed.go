package testserver

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BedServer is one real MCP server of the test bed: a stdio command that lists its tools
// without network or credentials.
type BedServer struct {
	// Name is the server's name in the test bed ("everything", "memory", "playwright", …).
	Name string
	// Command, Args and Env (extra "KEY=value" entries on top of the test's environment)
	// start it over stdio. The server reads requests until its stdin closes.
	Command string
	Args    []string
	Env     []string
}

// Cmd returns an exec.Cmd that starts s with the test's environment plus s.Env.
func (s BedServer) Cmd() *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = append(cmd.Environ(), s.Env...)
	return cmd
}

// TestBed returns the test bed's servers, in a fixed order: the npm reference servers
// (everything, memory, filesystem over a temporary root, sequential-thinking, github with a
// dummy token, Playwright's MCP server) and two Go servers (the go-sdk's everything example,
// from the module cache, and the faultserver). The npm servers are those `make test` installs
// (NPMBin); the Go servers are built once per test process. A missing one fails t.
func TestBed(t testing.TB) []BedServer {
	t.Helper()
	return []BedServer{
		{Name: "everything", Command: NPMBin(t, "mcp-server-everything")},
		{Name: "memory", Command: NPMBin(t, "mcp-server-memory"), Env: []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}},
		{Name: "filesystem", Command: NPMBin(t, "mcp-server-filesystem"), Args: []string{t.TempDir()}},
		{Name: "sequential-thinking", Command: NPMBin(t, "mcp-server-sequential-thinking")},
		{Name: "github", Command: NPMBin(t, "mcp-server-github"), Env: []string{"GITHUB_PERSONAL_ACCESS_TOKEN=dummy-token-for-listing"}},
		{Name: "playwright", Command: NPMBin(t, "playwright-mcp"), Args: []string{"--headless", "--isolated"}},
		{Name: "go-everything", Command: buildGoSDKEverything(t)},
		{Name: "faultserver", Command: Build(t)},
	}
}

var goEverything = sibling{name: "go-sdk-everything", pkg: "github.com/modelcontextprotocol/go-sdk/examples/server/everything"}

// buildGoSDKEverything compiles the go-sdk's example server "everything" (the module this
// module requires, from the module cache) once per test process, beside the faultserver.
func buildGoSDKEverything(t testing.TB) string {
	t.Helper()
	return goEverything.build(t)
}
