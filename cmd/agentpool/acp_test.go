package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// acpClientDir is testdata/npm, whose node_modules must hold @agentclientprotocol/sdk (pinned
// in package.json, installed by make deps); the test fails when it or node is missing.
func acpClientDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/npm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the ACP TypeScript SDK is not installed (%v): run make deps (npm ci --prefix testdata/npm)", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: the ACP client script needs Node 20 (then run make deps): %v", err)
	}
	return dir
}

// acpTranscript is what testdata/acp/client.mjs prints.
type acpTranscript struct {
	Error                 string `json:"error"`
	ClientProtocolVersion int    `json:"clientProtocolVersion"`
	Initialize            struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			McpCapabilities struct {
				HTTP bool `json:"http"`
			} `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
	} `json:"initialize"`
	SessionID string `json:"sessionId"`
	Commands  []struct {
		Name string `json:"name"`
	} `json:"commands"`
	Updates []struct {
		SessionUpdate string          `json:"sessionUpdate"`
		ToolCallID    string          `json:"toolCallId"`
		Title         string          `json:"title"`
		Status        string          `json:"status"`
		RawInput      json.RawMessage `json:"rawInput"`
		Content       json.RawMessage `json:"content"`
		Meta          struct {
			Agentpool struct {
				Origin struct {
					Kind, Location string
				} `json:"origin"`
			} `json:"agentpool"`
		} `json:"_meta"`
	} `json:"updates"`
	Echo, Command, Sleep struct {
		StopReason string `json:"stopReason"`
	}
	CommandLine    string `json:"commandLine"`
	SleepBegan     string `json:"sleepBegan"`
	SleepCancelled string `json:"sleepCancelled"`
	Exit           struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"exit"`
}

// TestACPWithTheTypeScriptClient drives `agentpool acp` with the official ACP TypeScript SDK's
// client (a Node script) against the scripted model server: initialize, a session holding one
// stdio MCP server the client passes, a prompt whose tool call is reported (tool_call and
// tool_call_update with the tool's origin), a slash command from the advertised list whose
// expansion reaches the model, and a cancel during a slow tool call: the turn ends cancelled
// and the upstream server sees its call cancelled. agentpool exits 0 when stdin closes, and the
// server it started is gone.
func TestACPWithTheTypeScriptClient(t *testing.T) {
	t.Parallel()
	npm := acpClientDir(t)
	fault := testserver.Build(t)
	model := newModelServer(t, func(last modelMessage) modelReply {
		switch {
		case last.Role == "tool":
			return modelReply{Text: "echoed: " + last.Content}
		case last.Content == "please echo hello":
			return modelReply{Calls: []modelCall{{Name: "fault__echo", Args: `{"text":"hello"}`}}}
		case last.Content == "please sleep":
			return modelReply{Calls: []modelCall{{Name: "fault__sleep", Args: `{"ms":600000}`}}}
		}
		return modelReply{Text: "you said: " + last.Content}
	})
	bin, err := exec.LookPath("agentpool") // this test binary, as testscript.Main installs it
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	home := filepath.Join(work, "home")
	logFile := filepath.Join(work, "fault.log")
	cfg, _ := json.Marshal(map[string]any{
		"npmDir": npm, "command": bin, "faultserver": fault, "log": logFile,
		"args": []string{"--no-default-roots", "acp", "--base-url", model.URL, "--model", "local-model"},
	})
	script, err := filepath.Abs("testdata/acp/client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, string(cfg))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "OPENAI_API_KEY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var tr acpTranscript
	if err := json.Unmarshal(stdout.Bytes(), &tr); err != nil || runErr != nil || tr.Error != "" {
		t.Fatalf("client: %v (transcript error %q, decode %v)\nstdout:\n%s\nstderr:\n%s", runErr, tr.Error, err, stdout.String(), stderr.String())
	}
	t.Logf("agentpool's stderr:\n%s", stderr.String())

	if tr.Initialize.ProtocolVersion != tr.ClientProtocolVersion || tr.ClientProtocolVersion != 1 {
		t.Errorf("protocol version %d, the client's %d: want both 1", tr.Initialize.ProtocolVersion, tr.ClientProtocolVersion)
	}
	if !tr.Initialize.AgentCapabilities.McpCapabilities.HTTP {
		t.Error("initialize does not advertise http MCP servers")
	}
	// The echo turn: tool_call then tool_call_update completed, with the tool's origin.
	var started, completed bool
	for _, u := range tr.Updates {
		switch u.SessionUpdate {
		case "tool_call":
			if u.Title == "echo (fault)" { // fault__echo, made readable
				started = true
				if u.Status != "in_progress" || string(u.RawInput) != `{"text":"hello"}` || u.Meta.Agentpool.Origin.Location != "mcp://fault" {
					t.Errorf("tool_call %+v: want in_progress, its arguments, origin mcp://fault", u)
				}
			}
		case "tool_call_update":
			if u.Status == "completed" && strings.Contains(string(u.Content), "hello") {
				completed = started
				if u.Meta.Agentpool.Origin.Kind != "remote" {
					t.Errorf("tool_call_update %+v: want the origin", u)
				}
			}
		}
	}
	if !started || !completed {
		t.Errorf("the echo call was not reported as a tool_call then a completed tool_call_update: %+v", tr.Updates)
	}
	if tr.Echo.StopReason != "end_turn" || tr.Command.StopReason != "end_turn" {
		t.Errorf("stop reasons %q, %q, want end_turn", tr.Echo.StopReason, tr.Command.StopReason)
	}
	// The slash command: the model got the prompt's expansion, not the line.
	var got []string
	for _, b := range model.Requests() {
		got = append(got, string(b))
	}
	if !strings.Contains(strings.Join(got, "\n"), "Hello, Ann!") {
		t.Errorf("the model never got %s expanded (Hello, Ann!)", tr.CommandLine)
	}
	// The cancel: cancelled stop reason, and the server saw its call cancelled.
	if tr.Sleep.StopReason != "cancelled" {
		t.Errorf("the cancelled turn ended with %q, want cancelled", tr.Sleep.StopReason)
	}
	if tr.SleepBegan == "" || tr.SleepCancelled == "" {
		t.Errorf("fault server log: began %q, cancelled %q: the upstream call was not cancelled", tr.SleepBegan, tr.SleepCancelled)
	}
	if tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("agentpool exited %+v after stdin closed, want 0", tr.Exit)
	}
	// No process left: the server the session started has ended.
	if pid, err := strconv.Atoi(strings.TrimPrefix(tr.SleepBegan, "begin ")); err == nil {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("the session's server %d is still running after agentpool exited (kill 0: %v)", pid, err)
		}
	}
}
