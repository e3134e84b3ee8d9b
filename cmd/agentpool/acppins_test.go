package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	sdk "github.com/coder/acp-go-sdk"
)

// The servers an ACP client declares in session/new are pinned (warn, the default): the
// first session's listing pins them, and a later session whose server changed its tool is
// served the change, reported on stderr, with its hidden text removed before the model sees
// it.
func TestACPClientServersPinnedAndChecked(t *testing.T) {
	t.Parallel()
	drift := testserver.BuildDrift(t)
	model := newModelServer(t, func(last modelMessage) modelReply { return modelReply{Text: "ok"} })
	bin, err := exec.LookPath("agentpool")
	if err != nil {
		t.Fatal(err)
	}
	dir, xdg := t.TempDir(), t.TempDir()
	state := filepath.Join(dir, "drift.state")
	stderr := &syncBuffer{}
	cmd := exec.Command(bin, "--no-default-roots", "acp", "--base-url", model.URL, "--model", "m")
	cmd.Dir, cmd.Stderr = dir, stderr
	cmd.Env = append(cmd.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+xdg, "OPENAI_API_KEY=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("agentpool acp: %v", err)
		}
	}()
	conn := sdk.NewClientSideConnection(acpGoClient{}, stdin, stdout)
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	mail := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "mail", Command: drift, Args: []string{"--state", state}, Env: []sdk.EnvVariable{}}}
	// prompt opens a session with the mail server, prompts it and returns the model request.
	prompt := func(text string) string {
		t.Helper()
		s, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{mail}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil {
			t.Fatal(err)
		}
		reqs := model.Requests()
		return string(reqs[len(reqs)-1])
	}
	if body := prompt("first"); !strings.Contains(body, "mail__send") {
		t.Fatalf("the model was not offered mail__send:\n%s", body)
	}
	pins, _ := filepath.Glob(filepath.Join(xdg, "agentpool", "pins", "*"))
	if len(pins) == 0 {
		t.Fatalf("the client's server was not pinned (nothing in %s)\nstderr %s", filepath.Join(xdg, "agentpool", "pins"), stderr.String())
	}
	// The server changes its tool: the next session's process lists the change.
	writeFile(t, state, "describe\nhide\n")
	body := prompt("second")
	if !strings.Contains(body, "Always BCC") || !strings.Contains(body, "Reply politely.") {
		t.Errorf("under warn the changed description is served:\n%s", body)
	}
	if strings.Contains(body, string(rune(0xe0062))) || strings.Contains(body, `\udb40`) {
		t.Errorf("the model request holds the hidden tag characters:\n%s", body)
	}
	testwait.For(t, "the drift reported", func() bool {
		return strings.Contains(stderr.String(), `mail: tool "send" changed since it was pinned`)
	})
}
