package main

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// servedView is what a client of `agentpool serve --stdio` run in the repository sees: the
// names of the tools and prompts, whether a call of each tool named in calls failed, whether
// skill://front/SKILL.md could be read, and serve's stderr.
type servedView struct {
	tools, prompts []string
	callFailed     map[string]bool
	readFront      bool
	stderr         string
}

// serve runs `agentpool serve --stdio` in the repository (args are global flags), lists and
// calls through a go-sdk client, and closes it, which ends serve.
func (r *trustRepo) serve(t *testing.T, args ...string) servedView {
	t.Helper()
	cmd := exec.Command("agentpool", append(args, "serve", "--stdio")...)
	cmd.Dir, cmd.Env = r.dir, r.env()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "trust-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to serve: %v\nstderr %s", err, stderr.String())
	}
	v := servedView{callFailed: map[string]bool{}}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		v.tools = append(v.tools, tool.Name)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		v.prompts = append(v.prompts, p.Name)
	}
	for name, arg := range map[string]map[string]any{
		"front__echo": {"text": "x"}, "cfgsrv__echo": {"text": "x"}, "nope": {}, "load_skill": {"name": "front"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: arg})
		v.callFailed[name] = err != nil || res.IsError
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://front/SKILL.md"})
	v.readFront = err == nil
	cs.Close()
	waitExit(t, cmd, "serve --stdio after the client left")
	v.stderr = stderr.String()
	return v
}

// TestServeProjectTrust is issue 8's acceptance for `serve`: in an untrusted repository a
// client of `agentpool serve` sees none of the project's skills, commands or servers, and
// calling or reading them starts nothing; once trusted, they are served.
func TestServeProjectTrust(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	v := r.serve(t)
	if m := r.created(); len(m) > 0 {
		t.Errorf("serve in an untrusted project created %v; stderr:\n%s", m, v.stderr)
	}
	for _, tool := range v.tools {
		if strings.HasPrefix(tool, "front__") || strings.HasPrefix(tool, "jsonskill__") || strings.HasPrefix(tool, "cfgsrv__") {
			t.Errorf("untrusted project's tool %s served", tool)
		}
	}
	if slices.Contains(v.prompts, "front") || slices.Contains(v.prompts, "jsonskill") || slices.Contains(v.prompts, "projcmd") {
		t.Errorf("untrusted project's skills or command served as prompts: %v", v.prompts)
	}
	for _, name := range []string{"front__echo", "cfgsrv__echo", "nope", "load_skill"} {
		if !v.callFailed[name] {
			t.Errorf("call of %s in an untrusted project succeeded", name)
		}
	}
	if v.readFront {
		t.Error("skill://front/SKILL.md read from an untrusted project")
	}
	if n := strings.Count(v.stderr, "is not trusted"); n != 1 {
		t.Errorf("serve's stderr says the project is not trusted %d times, want once:\n%s", n, v.stderr)
	}

	if _, _, code := r.run(t, "trust"); code != 0 {
		t.Fatal("trust failed")
	}
	v = r.serve(t)
	if m := r.created(); len(m) != 3 {
		t.Errorf("serve in a trusted project created %v, want all three markers; stderr:\n%s", m, v.stderr)
	}
	for _, tool := range []string{"front__echo", "jsonskill__echo", "cfgsrv__echo"} {
		if !slices.Contains(v.tools, tool) {
			t.Errorf("trusted project's tool %s not served: %v", tool, v.tools)
		}
	}
	if !slices.Contains(v.prompts, "front") || !slices.Contains(v.prompts, "projcmd") {
		t.Errorf("trusted project's skill and command not served as prompts: %v", v.prompts)
	}
	if v.callFailed["front__echo"] || v.callFailed["load_skill"] || !v.readFront {
		t.Errorf("trusted project: calls failed %v, read front %v", v.callFailed, v.readFront)
	}
}
