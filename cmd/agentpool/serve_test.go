package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveFixture writes a skill root with one skill and a config with the fault server as a
// session-scoped upstream, and returns the arguments that select them.
func serveFixture(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills", "wave", "SKILL.md"), "---\nname: wave\ndescription: Waves.\n---\nWave at $ARGUMENTS.\n")
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), "mcp_servers:\n  fault: {command: "+testserver.Build(t)+", scope: session}\n")
	return []string{"--no-default-roots", "--skills-dir", filepath.Join(dir, "skills"), "--config", filepath.Join(dir, "agentpool.yaml")}
}

// exercise lists and calls through a connected client and returns the session server's pid.
func exercise(t *testing.T, cs *mcp.ClientSession) int {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) < 3 {
		t.Errorf("tools: %d, want the fault server's and load_skill", len(tools.Tools))
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "wave") || !slices.Contains(names, "fault:greet") {
		t.Errorf("prompts %v, want the skill wave and the upstream's fault:greet", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__echo", Arguments: map[string]any{"text": "through serve"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "through serve" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__pid", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(res.Content[0].(*mcp.TextContent).Text)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestServeHTTPBinary runs `agentpool serve --http 127.0.0.1:0`: it prints its endpoint with
// the port it got, a go-sdk client lists and calls through it, and SIGTERM ends it with exit
// code 0, its session's server process gone and nothing printed on stdout.
func TestServeHTTPBinary(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("agentpool", append(serveFixture(t), "serve", "--http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stdout := &syncBuffer{}
	cmd.Stdout = stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var url string
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:[1-9][0-9]*/mcp`)
	for url == "" && sc.Scan() {
		url = endpoint.FindString(sc.Text())
	}
	if url == "" {
		_ = cmd.Process.Kill()
		waitExit(t, cmd, "serve")
		t.Fatal("serve printed no endpoint URL with a port")
	}
	go func() { // keep draining stderr
		for sc.Scan() {
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	pid := exercise(t, cs)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, "serve after SIGTERM")
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if testwait.Alive(pid) {
		t.Errorf("the session's server process %d outlived serve", pid)
	}
	if s := stdout.String(); s != "" {
		t.Errorf("serve --http wrote to stdout: %q", s)
	}
}

// TestServeStdioBinary runs `agentpool serve --stdio` as a client that spawns it would: a
// go-sdk client lists and calls over its stdin/stdout (anything else written to stdout would
// break the client), then SIGTERM ends it with exit code 0; a second run ends with 0 when the
// client closes stdin.
func TestServeStdioBinary(t *testing.T) {
	t.Parallel()
	args := append(serveFixture(t), "serve", "--stdio")
	for _, end := range []string{"SIGTERM", "stdin closed"} {
		cmd := exec.Command("agentpool", args...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: out, Writer: in}, nil)
		if err != nil {
			_ = cmd.Process.Kill()
			waitExit(t, cmd, "serve --stdio")
			t.Fatalf("%s: connect: %v; stderr:\n%s", end, err, stderr)
		}
		pid := exercise(t, cs)
		if end == "SIGTERM" {
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		} else {
			_ = in.Close()
		}
		waitExit(t, cmd, fmt.Sprintf("serve --stdio after %s", end))
		_ = cs.Close()
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("%s: exit code %d, want 0; stderr:\n%s", end, code, stderr)
		}
		if testwait.Alive(pid) {
			t.Errorf("%s: the session's server process %d outlived serve", end, pid)
		}
		if strings.Contains(stderr.String(), "panic") {
			t.Errorf("%s: stderr:\n%s", end, stderr)
		}
	}
}

// TestServeEmbeddedDefault: with no config and no --skills-dir, serve also serves the bundled
// example skills, beside the default roots: a user's own skill of an example's name wins
// over the example. The examples' temporary folder is gone after exit.
func TestServeEmbeddedDefault(t *testing.T) {
	t.Parallel()
	home, tmp, project := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".agents", "skills", "explain", "SKILL.md"), "---\nname: explain\ndescription: The user's own explain.\n---\nMine.\n")
	cmd := exec.Command("agentpool", "serve", "--stdio")
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+tmp)
	cs, in, stderr := connectStdio(t, cmd, nil)
	ctx := context.Background()
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	desc := map[string]string{}
	for _, p := range prompts.Prompts {
		desc[p.Name] = p.Description
	}
	if _, ok := desc["hello-world"]; !ok || desc["code-review"] == "" || desc["explain"] != "The user's own explain." {
		t.Errorf("prompts %v: want the examples hello-world and code-review, and the user's explain", desc)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://code-review/references/checklist.md"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text == "" {
		t.Errorf("read the example's reference: %v %+v", err, rr)
	}
	_ = in.Close()
	waitExit(t, cmd, "serve --stdio")
	_ = cs.Close()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "bundled example skills code-review, explain, hello-world") {
		t.Errorf("stderr does not say which examples are served:\n%s", stderr)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "agentpool-examples-*"))
	if len(left) > 0 {
		t.Errorf("examples folder left behind: %v", left)
	}
}
