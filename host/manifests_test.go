package host

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/manifest"
)

// Two agents' servers of one name and command run in different folders are different
// programs: the tools one listed are not served as the other's cached manifest.
func TestManifestOfAnotherFolderNotServed(t *testing.T) {
	bin := testserver.Build(t)
	ctx := context.Background()
	root := t.TempDir()
	dirA, dirB := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{dirA, dirB} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(dirA, "srv")); err != nil {
		t.Fatal(err)
	}
	store := manifest.NewStore(filepath.Join(root, "cache"), nil)
	h := buildHost(t, filepath.Join(root, "x.yaml"), `
agents:
  a:
    mcp_servers:
      srv: {command: /bin/sh, args: [-c, exec ./srv], cwd: `+dirA+`, lazy: true, retry: {attempts: 1}}
  b:
    mcp_servers:
      srv: {command: /bin/sh, args: [-c, exec ./srv], cwd: `+dirB+`, lazy: true, retry: {attempts: 1}}
`, Options{Manifests: store})
	tools := func(agent string) ([]string, error) {
		for _, c := range h.Registry.Visible(ext.Scope{AgentName: agent}) {
			if p, ok := c.(ext.ToolProvider); ok && c.Name() == "srv" {
				ts, err := p.Tools(ctx)
				var names []string
				for _, t := range ts {
					names = append(names, t.Name)
				}
				return names, err
			}
		}
		t.Fatalf("agent %s has no server srv", agent)
		return nil, nil
	}
	if got, err := tools("a"); err != nil || !slices.Contains(got, "srv__echo") {
		t.Fatalf("agent a's tools = %v, %v; want its server's", got, err)
	}
	if got, err := tools("b"); err == nil {
		t.Fatalf("agent b's tools = %v; want its server's start to fail (there is no ./srv in its folder), not agent a's tools", got)
	}
}

// A declaration changed only in its environment or headers (a toolset picked by a variable or a
// header, a read-only flag) is another server: its tools are not served from the other's
// cached manifest.
func TestManifestKeyCoversEnvAndHeaders(t *testing.T) {
	base := decl.Server{Type: decl.TypeStdio, Command: "github-mcp", Env: map[string]string{"TOOLSETS": "repos"}}
	other := base
	other.Env = map[string]string{"TOOLSETS": "repos,issues"}
	if manifestKey("user", "github", base) == manifestKey("user", "github", other) {
		t.Error("two declarations differing in env share a manifest key")
	}
	h1 := decl.Server{Type: decl.TypeStreamableHTTP, URL: "https://x.example/mcp", Headers: map[string]string{"X-MCP-Readonly": "true"}}
	h2 := h1
	h2.Headers = map[string]string{"X-MCP-Readonly": "false"}
	if manifestKey("user", "gh", h1) == manifestKey("user", "gh", h2) {
		t.Error("two declarations differing in headers share a manifest key")
	}
	if manifestKey("user", "github", base) != manifestKey("user", "github", base) {
		t.Error("one declaration, two keys")
	}
}
