package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// editorUpdate is one session update as testdata/acp/editor.mjs records it.
type editorUpdate struct {
	Step          int             `json:"step"`
	SessionUpdate string          `json:"sessionUpdate"`
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	Locations     json.RawMessage `json:"locations"`
	Content       json.RawMessage `json:"content"`
	Entries       json.RawMessage `json:"entries"`
	Meta          json.RawMessage `json:"_meta"`
}

// editorTranscript is what testdata/acp/editor.mjs prints.
type editorTranscript struct {
	Error      string          `json:"error"`
	NewSession json.RawMessage `json:"newSession"`
	Updates    []editorUpdate  `json:"updates"`
	Permission []struct {
		Step    int `json:"step"`
		Request struct {
			ToolCall editorUpdate `json:"toolCall"`
			Options  []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		} `json:"request"`
		Answer string `json:"answer"`
	} `json:"permissions"`
	Prompts []struct {
		StopReason string `json:"stopReason"`
	} `json:"prompts"`
	Exit struct {
		Code *int `json:"code"`
	} `json:"exit"`
	Stderr string `json:"-"` // agentpool's
}

// editorStep is one prompt of an editor.mjs scenario.
type editorStep struct {
	Prompt      string `json:"prompt"`
	CancelOnLog string `json:"cancelOnLog,omitempty"`
}

// editorScenario is an editor.mjs run: `agentpool acp` against model with config (a YAML
// file's text, or none) and a session holding the fault server (as "fault", logging to log).
type editorScenario struct {
	model       *modelServer
	config      string
	permissions []string
	steps       []editorStep
	servers     []map[string]any // more servers for session/new
	acpArgs     []string         // more arguments of agentpool acp
}

// runEditor runs s with the official TypeScript client and returns its transcript and the
// fault server's log file; agentpool must have exited 0 once the editor closed its stdin.
func runEditor(t *testing.T, s editorScenario) (editorTranscript, string) {
	t.Helper()
	npm := acpClientDir(t)
	bin, err := exec.LookPath("agentpool")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	logFile := filepath.Join(work, "fault.log")
	args := []string{"--no-default-roots"}
	if s.config != "" {
		cfgFile := filepath.Join(work, "agentpool.yaml")
		if err := os.WriteFile(cfgFile, []byte(s.config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", cfgFile)
	}
	args = append(args, "acp", "--base-url", s.model.URL, "--model", "local-model")
	args = append(args, s.acpArgs...)
	servers := append([]map[string]any{{"name": "fault", "command": testserver.Build(t), "args": []string{"--log", logFile}, "env": []any{}}}, s.servers...)
	cfg, _ := json.Marshal(map[string]any{"npmDir": npm, "command": bin, "args": args, "log": logFile,
		"mcpServers": servers, "permissions": s.permissions, "steps": s.steps})
	script, err := filepath.Abs("testdata/acp/editor.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, string(cfg))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(work, "home"), "OPENAI_API_KEY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var tr editorTranscript
	if err := json.Unmarshal(stdout.Bytes(), &tr); err != nil || runErr != nil || tr.Error != "" {
		t.Fatalf("editor: %v (transcript error %q, decode %v)\nstdout:\n%s\nstderr:\n%s", runErr, tr.Error, err, stdout.String(), stderr.String())
	}
	t.Logf("agentpool's stderr:\n%s", stderr.String())
	tr.Stderr = stderr.String()
	if tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("agentpool exited %+v after stdin closed, want 0", tr.Exit)
	}
	return tr, logFile
}

// toolCalls returns the tool_call updates of the transcript, in order.
func (tr editorTranscript) toolCalls() []editorUpdate {
	var out []editorUpdate
	for _, u := range tr.Updates {
		if u.SessionUpdate == "tool_call" {
			out = append(out, u)
		}
	}
	return out
}

// An editor keys its tool-call cards by toolCallId, which ACP wants unique within a session:
// a cancelled step is dropped from the history, so a model reusing its ids (call_1 again in
// the next turn) must not reopen the cancelled call's card.
func TestACPToolCallIDsUniqueAcrossCancel(t *testing.T) {
	t.Parallel()
	model := newModelServer(t, func(last modelMessage) modelReply {
		switch {
		case last.Role == "tool":
			return modelReply{Text: "done"}
		case last.Content == "please sleep":
			return modelReply{Calls: []modelCall{{ID: "call_1", Name: "fault__sleep", Args: `{"ms":600000}`}}}
		}
		return modelReply{Calls: []modelCall{{ID: "call_1", Name: "fault__echo", Args: `{"text":"hi"}`}}}
	})
	tr, _ := runEditor(t, editorScenario{model: model, steps: []editorStep{
		{Prompt: "please sleep", CancelOnLog: "begin "}, {Prompt: "please echo"}}})
	calls := tr.toolCalls()
	if len(calls) != 2 || calls[0].ToolCallID == "" || calls[0].ToolCallID == calls[1].ToolCallID {
		t.Fatalf("tool calls %+v: want two, with different ids", calls)
	}
	if tr.Prompts[0].StopReason != "cancelled" || tr.Prompts[1].StopReason != "end_turn" {
		t.Errorf("stop reasons %+v, want cancelled then end_turn", tr.Prompts)
	}
	for _, u := range tr.Updates {
		if u.SessionUpdate == "tool_call_update" && u.ToolCallID == calls[0].ToolCallID && u.Step == 1 {
			t.Errorf("the second turn updated the cancelled call's card: %+v", u)
		}
	}
}

// session/request_permission comes before a tool that is not read-only (fault__count is
// destructive), never before a read-only one (fault__echo); a rejected call does not run and
// the model is told the user declined; "allow always" is remembered for the session.
func TestACPPermission(t *testing.T) {
	t.Parallel()
	model := newModelServer(t, func(last modelMessage) modelReply {
		switch {
		case last.Role == "tool":
			return modelReply{Text: "tool: " + last.Content}
		case last.Content == "please echo":
			return modelReply{Calls: []modelCall{{Name: "fault__echo", Args: `{"text":"hi"}`}}}
		}
		return modelReply{Calls: []modelCall{{Name: "fault__count", Args: `{}`}}}
	})
	tr, logFile := runEditor(t, editorScenario{model: model,
		permissions: []string{"reject_once", "allow_always"},
		steps:       []editorStep{{Prompt: "please echo"}, {Prompt: "count 1"}, {Prompt: "count 2"}, {Prompt: "count 3"}}})
	if len(tr.Permission) != 2 || tr.Permission[0].Step != 1 || tr.Permission[1].Step != 2 {
		t.Fatalf("permission requests %+v: want one in the second turn and one in the third only", tr.Permission)
	}
	calls := tr.toolCalls()
	for i, p := range tr.Permission {
		kinds := map[string]bool{}
		for _, o := range p.Request.Options {
			kinds[o.Kind] = true
		}
		if !kinds["allow_once"] || !kinds["allow_always"] || !kinds["reject_once"] {
			t.Errorf("request %d options %+v: want allow_once, allow_always, reject_once", i, p.Request.Options)
		}
		if len(calls) != 4 || p.Request.ToolCall.ToolCallID != calls[i+1].ToolCallID {
			t.Errorf("request %d is for call %q, want the card of the count call (%+v)", i, p.Request.ToolCall.ToolCallID, calls)
		}
	}
	log, _ := os.ReadFile(logFile)
	if n := strings.Count(string(log), "count "); n != 2 {
		t.Errorf("the fault server counted %d times, want 2 (the rejected call must not run):\n%s", n, log)
	}
	var told bool
	for _, b := range model.Requests() {
		if strings.Contains(string(b), "declined") {
			told = true
		}
	}
	if !told {
		t.Error("the model was never told the user declined the call")
	}
	for _, u := range tr.Updates {
		if u.SessionUpdate == "tool_call_update" && u.Step == 1 && u.Status != "failed" {
			t.Errorf("the rejected call's card: %+v, want failed", u)
		}
	}
}

// A tool-call card reads as an editor's own: the tool's title (or its name made readable,
// with its server), a kind from the annotations and the name, and the file paths of the
// arguments as locations (the reference filesystem server's tools).
func TestACPToolCallCards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha"), 0o600); err != nil {
		t.Fatal(err)
	}
	read, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "a.txt")})
	write, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "b.txt"), "content": "beta"})
	model := newModelServer(t, func(last modelMessage) modelReply {
		switch {
		case last.Role == "tool":
			return modelReply{Text: "done"}
		case last.Content == "read":
			return modelReply{Calls: []modelCall{{Name: "files__read_text_file", Args: string(read)}}}
		case last.Content == "write":
			return modelReply{Calls: []modelCall{{Name: "files__write_file", Args: string(write)}}}
		}
		return modelReply{Calls: []modelCall{{Name: "fault__echo", Args: `{"text":"hi"}`}}}
	})
	tr, _ := runEditor(t, editorScenario{model: model, steps: []editorStep{{Prompt: "read"}, {Prompt: "write"}, {Prompt: "echo"}},
		servers: []map[string]any{{"name": "files", "command": testserver.NPMBin(t, "mcp-server-filesystem"), "args": []string{dir}, "env": []any{}}}})
	calls := tr.toolCalls()
	if len(calls) != 3 {
		t.Fatalf("tool calls %+v, want 3", calls)
	}
	want := []struct{ title, kind, location string }{
		{"Read Text File", "read", filepath.Join(dir, "a.txt")},
		{"Write File", "edit", filepath.Join(dir, "b.txt")},
		{"echo (fault)", "read", ""},
	}
	for i, w := range want {
		c := calls[i]
		var locs []struct{ Path string }
		json.Unmarshal(c.Locations, &locs)
		if c.Title != w.title || c.Kind != w.kind || (w.location == "") != (len(locs) == 0) || len(locs) > 0 && locs[0].Path != w.location {
			t.Errorf("card %d: title %q, kind %q, locations %s; want %q, %q, %q", i, c.Title, c.Kind, c.Locations, w.title, w.kind, w.location)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "b.txt")); err != nil || string(data) != "beta" {
		t.Errorf("the allowed write did not happen: %q, %v", data, err)
	}
}

// The model's streamed reasoning reaches the editor as agent_thought_chunk, and a plan it
// states through update_plan as a plan update (the tool offered under ACP), not as a card.
func TestACPPlanAndThoughts(t *testing.T) {
	t.Parallel()
	model := newModelServer(t, func(last modelMessage) modelReply {
		if last.Role == "tool" {
			return modelReply{Text: "planned: " + last.Content}
		}
		return modelReply{Reasoning: "two steps are needed", Calls: []modelCall{{Name: "update_plan",
			Args: `{"plan":[{"content":"read the file","priority":"high","status":"in_progress"},{"content":"write the answer","status":"pending"}]}`}}}
	})
	tr, _ := runEditor(t, editorScenario{model: model, steps: []editorStep{{Prompt: "make a plan"}}})
	var thought string
	var plans []json.RawMessage
	for _, u := range tr.Updates {
		switch u.SessionUpdate {
		case "agent_thought_chunk":
			var c struct{ Text string }
			json.Unmarshal(u.Content, &c)
			thought += c.Text
		case "plan":
			plans = append(plans, u.Entries)
		}
	}
	if thought != "two steps are needed" {
		t.Errorf("thoughts %q, want the model's reasoning", thought)
	}
	want := `[{"content":"read the file","priority":"high","status":"in_progress"},{"content":"write the answer","priority":"medium","status":"pending"}]`
	if len(plans) != 1 || string(plans[0]) != want {
		t.Errorf("plan updates %s, want one: %s", plans, want)
	}
	if calls := tr.toolCalls(); len(calls) != 0 || len(tr.Permission) != 0 {
		t.Errorf("cards %+v and permission requests %+v for update_plan, want none", calls, tr.Permission)
	}
	if tr.Prompts[0].StopReason != "end_turn" {
		t.Errorf("stop reason %q", tr.Prompts[0].StopReason)
	}
}

// A server of session/new that cannot start is told to the user as an agent message the
// editor shows (not only in _meta, which editors do not show) and logged; the session goes
// on with the other servers, and no _meta names the internal agent _acp.
func TestACPServerProblemShown(t *testing.T) {
	t.Parallel()
	model := newModelServer(t, func(last modelMessage) modelReply {
		if last.Role == "tool" {
			return modelReply{Text: "done"}
		}
		return modelReply{Calls: []modelCall{{Name: "fault__echo", Args: `{"text":"hi"}`}}}
	})
	missing := filepath.Join(t.TempDir(), "no-such-server")
	tr, _ := runEditor(t, editorScenario{model: model, steps: []editorStep{{Prompt: "echo"}},
		servers: []map[string]any{{"name": "broken", "command": missing, "args": []string{}, "env": []any{}}}})
	var shown string
	for _, u := range tr.Updates {
		if u.SessionUpdate == "agent_message_chunk" && u.Step == -1 {
			var c struct{ Text string }
			json.Unmarshal(u.Content, &c)
			shown += c.Text
		}
		if strings.Contains(string(u.Meta), "_acp") {
			t.Errorf("update %s %s: _meta names the internal agent: %s", u.SessionUpdate, u.ToolCallID, u.Meta)
		}
	}
	if !strings.Contains(shown, "broken") {
		t.Errorf("no agent message before the first prompt names the broken server: %q", shown)
	}
	if !strings.Contains(tr.Stderr, "broken") {
		t.Errorf("the problem was not logged:\n%s", tr.Stderr)
	}
	if len(tr.toolCalls()) != 1 || tr.Prompts[0].StopReason != "end_turn" {
		t.Errorf("the session did not go on with the fault server: %+v %+v", tr.toolCalls(), tr.Prompts)
	}
}

// A server's permission key names its tools as the server lists them, whatever prefix the
// config gives their names: a denied tool of a server with its own prefix does not run.
func TestACPPermissionDenyWithPrefix(t *testing.T) {
	t.Parallel()
	model := newModelServer(t, func(last modelMessage) modelReply {
		if last.Role == "tool" {
			return modelReply{Text: "tool: " + last.Content}
		}
		return modelReply{Calls: []modelCall{{Name: "c_count", Args: `{}`}}}
	})
	logFile := filepath.Join(t.TempDir(), "conf.log")
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"conf": map[string]any{
		"command": testserver.Build(t), "args": []string{"--log", logFile}, "prefix": "c_",
		"permission": map[string]any{"tools": map[string]string{"count": "deny"}}}}})
	runEditor(t, editorScenario{model: model, config: string(cfg), permissions: []string{"allow_once"},
		steps: []editorStep{{Prompt: "count"}}})
	if log, _ := os.ReadFile(logFile); strings.Contains(string(log), "count ") {
		t.Errorf("the denied tool ran:\n%s", log)
	}
	var told bool
	for _, b := range model.Requests() {
		if strings.Contains(string(b), "denies") {
			told = true
		}
	}
	if !told {
		t.Error("the model was never told the configuration denies the call")
	}
}

// The permission key of an agent's own server applies when agentpool acp runs that agent.
func TestACPPermissionDenyOfAgentServer(t *testing.T) {
	t.Parallel()
	model := newModelServer(t, func(last modelMessage) modelReply {
		if last.Role == "tool" {
			return modelReply{Text: "tool: " + last.Content}
		}
		return modelReply{Calls: []modelCall{{Name: "conf__count", Args: `{}`}}}
	})
	logFile := filepath.Join(t.TempDir(), "conf.log")
	cfg, _ := json.Marshal(map[string]any{"agents": map[string]any{"helper": map[string]any{
		"mcp_servers": map[string]any{"conf": map[string]any{"command": testserver.Build(t), "args": []string{"--log", logFile},
			"permission": map[string]any{"tools": map[string]string{"count": "deny"}}}}}}})
	runEditor(t, editorScenario{model: model, config: string(cfg), permissions: []string{"allow_once"},
		steps: []editorStep{{Prompt: "count"}}, acpArgs: []string{"--agent", "helper"}})
	if log, _ := os.ReadFile(logFile); strings.Contains(string(log), "count ") {
		t.Errorf("the denied tool ran:\n%s", log)
	}
	var told bool
	for _, b := range model.Requests() {
		if strings.Contains(string(b), "denies") {
			told = true
		}
	}
	if !told {
		t.Error("the model was never told the configuration denies the call")
	}
}
