package main

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	sdk "github.com/coder/acp-go-sdk"
)

// acpGoClient is an editor that accepts every session update and offers nothing else.
type acpGoClient struct{}

func (acpGoClient) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }
func (acpGoClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{}, errors.New("no")
}
func (acpGoClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("no")
}
func (acpGoClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("no")
}
func (acpGoClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("no")
}
func (acpGoClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no")
}
func (acpGoClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no")
}
func (acpGoClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no")
}
func (acpGoClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no")
}

// TestACPEditorServersStayInTheirSession: the MCP server one ACP session's client declared is
// that session's alone: the model of another session of the same agentpool acp is never
// offered its tools, while the session that declared it is; and a second session may declare
// a server of the same name, its own. (Review: no scope escape between sessions.)
func TestACPEditorServersStayInTheirSession(t *testing.T) {
	t.Parallel()
	fault := testserver.Build(t)
	model := newModelServer(t, func(last modelMessage) modelReply { return modelReply{Text: "ok " + last.Content} })
	bin, err := exec.LookPath("agentpool")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--no-default-roots", "acp", "--base-url", model.URL, "--model", "m")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cmd.Environ(), "HOME="+cmd.Dir, "OPENAI_API_KEY=")
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
	editor := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "editor", Command: fault, Args: []string{}, Env: []sdk.EnvVariable{}}}
	newSession := func(servers ...sdk.McpServer) sdk.SessionId {
		t.Helper()
		r, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cmd.Dir, McpServers: append([]sdk.McpServer{}, servers...)})
		if err != nil {
			t.Fatal(err)
		}
		return r.SessionId
	}
	// lastRequest prompts and returns the body of the model request the prompt caused.
	lastRequest := func(id sdk.SessionId, text string) string {
		t.Helper()
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil {
			t.Fatal(err)
		}
		reqs := model.Requests()
		body := string(reqs[len(reqs)-1])
		if !strings.Contains(body, text) {
			t.Fatalf("the last model request is not the prompt %q's", text)
		}
		return body
	}
	s1, s2 := newSession(editor), newSession()
	if body := lastRequest(s2, "from s2"); strings.Contains(body, "editor__") {
		t.Error("a session's model was offered another session's editor server tools")
	}
	if body := lastRequest(s1, "from s1"); !strings.Contains(body, "editor__echo") {
		t.Error("the session that declared the server was not offered editor__echo")
	}
	s3 := newSession(editor) // the same name in another session: its own server
	if body := lastRequest(s3, "from s3"); !strings.Contains(body, `"editor__echo"`) || strings.Contains(body, "editor__editor__") {
		t.Error("a second session declaring a server of the same name did not get it as its own")
	}
}
