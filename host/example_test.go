package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
)

// Build assembles a registry from a config; the caller then asks what a scope sees.
func ExampleBuild() {
	dir, _ := os.MkdirTemp("", "agentpool-example")
	defer os.RemoveAll(dir)
	skillDir := filepath.Join(dir, "skills", "greet")
	_ = os.MkdirAll(skillDir, 0o755)
	_ = os.WriteFile(filepath.Join(skillDir, "SKILL.md"),
		[]byte("---\nname: greet\ndescription: Greets the user.\n---\nSay hello to $ARGUMENTS.\n"), 0o644)

	cfg, err := config.Parse(filepath.Join(dir, "agentpool.yaml"), []byte("skills:\n  dirs: [skills]\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	h, err := host.Build(ctx, cfg, host.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)

	scope := ext.Scope{SessionID: "s1", AgentName: "coder"}
	for _, c := range h.Registry.Visible(scope) {
		fmt.Println("capability:", c.Name())
	}
	text, _ := h.Current().Skills.GetCommand(ctx, &ext.CommandRequest{Name: "greet", Args: []string{"Ada"}})
	fmt.Println(text.Text())
	contents, _ := h.Registry.ResolveURI(ctx, "skill://greet/SKILL.md", scope)
	fmt.Println(len(contents), contents[0].MIMEType)
	// Output:
	// capability: skills
	// capability: commands
	// Say hello to Ada.
	// 1 text/markdown
}
