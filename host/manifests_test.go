package host

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

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
