package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// chatFixture is what a chat test runs on: the user's config (a real stdio MCP server, a
// skill folder, a command folder) in a home of its own, and a scripted model.
type chatFixture struct {
	env    []string
	config string // the --config file
	log    string // the faultserver's --log file
	skill  string // the SKILL.md of skill "tone"
	model  *modelServer
}

// chatScript is the model: it calls fault__echo or fault__sleep when asked to, answers a tool
// result with its text, "rate me" with a 429, and any other message with "ok: " and the
// message.
func chatScript(last modelMessage) modelReply {
	switch {
	case last.Role == "tool":
		return modelReply{Text: "the tool said " + last.Content}
	case last.Content == "use the tool":
		return modelReply{Calls: []modelCall{{Name: "fault__echo", Args: `{"text":"ping-42"}`}}}
	case last.Content == "call a ghost":
		return modelReply{Calls: []modelCall{{Name: "ghost__tool", Args: `{}`}}}
	case last.Content == "send bad json":
		return modelReply{Calls: []modelCall{{Name: "fault__echo", Args: badArguments}}}
	case last.Content == "rate me":
		return modelReply{Status: http.StatusTooManyRequests}
	case last.Content == "sleep please":
		return modelReply{Text: "sleeping", Calls: []modelCall{{Name: "fault__sleep", Args: `{"ms":600000}`}}}
	}
	return modelReply{Text: "ok: " + last.Content}
}

// badArguments are tool-call arguments that are not JSON: cut short.
const badArguments = `{"text":"ping-4`

func newChatFixture(t *testing.T) *chatFixture {
	t.Helper()
	dir := t.TempDir()
	f := &chatFixture{
		config: filepath.Join(dir, "agentpool.yaml"),
		log:    filepath.Join(dir, "fault.log"),
		skill:  filepath.Join(dir, "skills", "tone", "SKILL.md"),
		model:  newModelServer(t, chatScript),
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(f.skill, "---\nname: tone\ndescription: Answer like a pirate.\n---\nSay arr.\n")
	write(filepath.Join(dir, "commands", "review.md"),
		"---\ndescription: Review a file\nargument-hint: <file> <depth>\n---\nReview $1 with depth $ARGUMENTS[1].\n")
	write(f.config, fmt.Sprintf(`skills:
  dirs: [%s]
commands:
  dirs: [%s]
mcp_servers:
  fault:
    command: %s
    args: [--log, %s]
`, filepath.Join(dir, "skills"), filepath.Join(dir, "commands"), testserver.Build(t), f.log))
	f.env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"),
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	return f
}

// args are the arguments of `agentpool chat` on the fixture, then more.
func (f *chatFixture) args(more ...string) []string {
	return append([]string{"--config", f.config, "chat", "--base-url", f.model.URL, "--model", "local-model"}, more...)
}

// TestChatTerminal chats in a pseudo-terminal: a tool call through the view, whose result
// reaches the model and whose answer is printed; a /command expanded through the view; an
// unknown command that sends nothing; a skill edited on disk seen by the next message; the
// history kept across turns; and a second Ctrl-C at the prompt quitting.
func TestChatTerminal(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	c := startChatTerm(t, f.env, f.args()...)
	c.expect("agentpool chat: local-model")
	c.expect("> ")

	// A tool call: run through the view, upstream, its result given to the model.
	c.send("use the tool")
	c.expect(`[tool] fault__echo {"text":"ping-42"} (remote mcp://fault)`)
	c.expect("[result] fault__echo: ping-42")
	c.expect("the tool said ping-42")
	c.expect("> ")
	reqs := requests(t, f.model)
	if len(reqs) != 2 {
		t.Fatalf("%d model requests for a turn with one tool call, want 2", len(reqs))
	}
	if text, id := reqs[1].last("tool"); text != "ping-42" || id == "" {
		t.Errorf("the second request's tool result is %q (call %q), want ping-42 answering the call", text, id)
	}
	offered := false
	for _, tool := range reqs[0].Tools {
		offered = offered || tool.Function.Name == "fault__sleep"
	}
	if !offered {
		t.Errorf("the model was not offered the view's tools: %+v", reqs[0].Tools)
	}

	// A command: the model receives its expansion, not the line typed.
	c.send("/review main.go 2")
	c.expect("ok: Review main.go with depth 2.")
	c.expect("> ")
	reqs = requests(t, f.model)
	if text, _ := reqs[len(reqs)-1].last("user"); strings.TrimSpace(text) != "Review main.go with depth 2." {
		t.Errorf("the model received %q for /review main.go 2, want the expansion", text)
	}
	// An unknown command: an error line, nothing sent.
	n := len(reqs)
	c.send("/nope x")
	c.expect("unknown command /nope")
	c.expect("> ")
	if got := len(requests(t, f.model)); got != n {
		t.Errorf("an unknown command sent %d requests to the model", got-n)
	}

	// A skill edit: reported, and carried by the next message's request.
	c.send("hello one")
	c.expect("ok: hello one")
	c.expect("> ")
	reqs = requests(t, f.model)
	if sys := reqs[len(reqs)-1].system(); !strings.Contains(sys, "Answer like a pirate.") {
		t.Fatalf("the system prompt does not carry the skill's description:\n%s", sys)
	}
	tmp := f.skill + ".tmp"
	if err := os.WriteFile(tmp, []byte("---\nname: tone\ndescription: Answer in haiku.\n---\nFive, seven, five.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, f.skill); err != nil { // as editors save
		t.Fatal(err)
	}
	c.expect("[changed] skills")
	c.send("hello two")
	c.expect("ok: hello two")
	c.expect("> ")
	reqs = requests(t, f.model)
	last := reqs[len(reqs)-1]
	if sys := last.system(); !strings.Contains(sys, "Answer in haiku.") || strings.Contains(sys, "pirate") {
		t.Errorf("the message after the edit does not carry the new description:\n%s", sys)
	}
	// The conversation so far went with it: every earlier prompt and answer.
	var history []string
	for _, m := range last.Messages {
		history = append(history, m.Role+": "+strings.TrimSpace(contentText(m.Content)))
	}
	for _, want := range []string{"user: use the tool", "tool: ping-42", "assistant: the tool said ping-42",
		"user: Review main.go with depth 2.", "user: hello one", "assistant: ok: hello one", "user: hello two"} {
		if !slices.Contains(history, want) {
			t.Errorf("the last request's history lacks %q:\n%s", want, strings.Join(history, "\n"))
		}
	}

	// Ctrl-C at the prompt: a hint; a second one in a row quits, cleanly.
	c.interrupt()
	c.expect("Ctrl-C again to quit")
	c.interrupt()
	if code := c.exitCode(); code != 0 {
		t.Errorf("chat quit by two Ctrl-C exited %d, want 0", code)
	}
}

// TestChatInterrupt presses Ctrl-C in a pseudo-terminal while a tool call sleeps upstream:
// the turn ends, interrupted, the server sees the call cancelled, and the same chat answers
// the next message. A Ctrl-C at the prompt followed by a line does not quit; SIGTERM does,
// and leaves no server behind.
func TestChatInterrupt(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	c := startChatTerm(t, f.env, f.args()...)
	c.expect("> ")
	c.send("sleep please")
	c.expect("[tool] fault__sleep")
	begin := waitLog(t, f.log, "begin ") // the call is running upstream
	c.interrupt()
	c.expect("[interrupted]")
	pid := strings.TrimPrefix(begin, "begin ")
	waitLog(t, f.log, "cancelled "+pid)
	c.expect("> ")

	c.send("still there?")
	c.expect("ok: still there?")
	c.expect("> ")
	reqs := requests(t, f.model)
	if text, _ := reqs[len(reqs)-1].last("user"); text != "still there?" {
		t.Errorf("after the interrupted turn the model received %q", text)
	}
	if text, _ := reqs[len(reqs)-1].last("tool"); text != "" {
		t.Errorf("the interrupted call's result reached the model: %q", text)
	}

	c.interrupt()
	c.expect("Ctrl-C again to quit")
	c.send("and now?")
	c.expect("ok: and now?")
	c.expect("> ")
	c.interrupt() // armed again, not quitting: a line came in between
	c.expect("Ctrl-C again to quit")

	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.exitCode(); code != exitTerminated {
		t.Errorf("chat after SIGTERM exited %d, want %d", code, exitTerminated)
	}
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatal(err)
	}
	gone(t, n)
}

// gone waits for process pid to be gone (reaped).
func gone(t *testing.T, pid int) {
	t.Helper()
	testwait.Within(t, chatReady, fmt.Sprintf("server %d to end with the chat", pid), func() bool { return !testwait.Alive(pid) })
}

// TestChatPiped runs a chat from a pipe, as a script would: no prompt, /help listing the
// view's commands, an unknown command reported, a model's 429 (after the client's retries)
// reported with the chat going on, a prompt answered, and the end of input quitting with 0.
// The API key is never printed.
func TestChatPiped(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	cmd := exec.Command("agentpool", f.args("--api-key", "sk-secret-key")...)
	cmd.Env = f.env
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("/help\n/nope\nrate me\nhello\n//etc/hosts?\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	out, errs := stdout.String(), stderr.String()
	for _, want := range []string{"/review <file> <depth>", "/tone", "ok: hello\n", "ok: /etc/hosts?\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.HasPrefix(out, "> ") || strings.Contains(out, "\n> ") {
		t.Errorf("a prompt was printed on a pipe:\n%s", out)
	}
	for _, want := range []string{"unknown command /nope", "error: ", "429"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(out+errs, "sk-secret-key") {
		t.Errorf("the API key was printed")
	}
	// rate me: the first try and the client's 2 retries; then hello and //etc/hosts?.
	if n := len(f.model.Requests()); n != 5 {
		t.Errorf("%d model requests, want 5", n)
	}

	// No endpoint: an error before anything starts.
	cmd = exec.Command("agentpool", "--config", f.config, "chat", "--model", "m")
	cmd.Env = f.env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "--base-url") {
		t.Errorf("chat without an endpoint: %v\n%s", err, out)
	}
}

// TestChatSeesCompilesView checks that a chat offers the model what `compile` shows, and with
// --agent what `compile --agent NAME` shows: the same tools (besides the agent's own resource
// tools) and the same static instructions. The agent has skills of its own, which replace
// the pool's catalogue, a tool filter, and a session-scoped server of its own.
func TestChatSeesCompilesView(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	dir := filepath.Dir(f.config)
	own := filepath.Join(dir, "reviewer-skills", "strict", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("---\nname: strict\ndescription: Review strictly.\n---\nBe strict.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(f.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg = append(cfg, fmt.Sprintf(`agents:
  reviewer:
    skills:
      dirs: [%s]
    deny_tools: ["fault__s*"]
    mcp_servers:
      mine:
        command: %s
        args: [--extra-tool, mine_tool]
        scope: session
`, filepath.Dir(filepath.Dir(own)), testserver.Build(t))...)
	if err := os.WriteFile(f.config, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, agentArgs := range [][]string{nil, {"--agent", "reviewer"}} {
		t.Run(fmt.Sprint("agent", agentArgs), func(t *testing.T) {
			compile := exec.Command("agentpool", append([]string{"--config", f.config, "compile", "--json"}, agentArgs...)...)
			compile.Env = f.env
			compile.Dir = t.TempDir()
			out, err := compile.Output()
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			var v struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
				Instructions struct {
					Static string `json:"static"`
				} `json:"instructions"`
			}
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, tool := range v.Tools {
				want = append(want, tool.Name)
			}

			before := len(f.model.Requests())
			chat := exec.Command("agentpool", f.args(agentArgs...)...)
			chat.Env = f.env
			chat.Dir = t.TempDir()
			chat.Stdin = strings.NewReader("hello\n")
			if out, err := chat.CombinedOutput(); err != nil {
				t.Fatalf("chat: %v\n%s", err, out)
			}
			reqs := requests(t, f.model)[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			var got []string
			for _, tool := range reqs[0].Tools {
				if n := tool.Function.Name; n != "read_resource" && n != "list_resources" {
					got = append(got, n)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("the chat offered\n%v\ncompile shows\n%v", got, want)
			}
			if sys := reqs[0].system(); !strings.HasPrefix(sys, strings.TrimSpace(v.Instructions.Static)) {
				t.Errorf("the chat's system prompt\n%s\ndoes not start with compile's static instructions\n%s", sys, v.Instructions.Static)
			}
			if agentArgs != nil && !slices.Contains(got, "mine__mine_tool") {
				t.Errorf("the agent's session server is not in its chat: %v", got)
			}
		})
	}
}

// TestChatCtrlCWhileClosing presses Ctrl-C, again and again, after /exit while the chat closes
// its host, which takes a while: its server ignores both the end of its stdin and SIGTERM, so
// it is killed only after the pool's grace. Ctrl-C there is the program's again, as in every
// command: the host is closed and the chat exits 130 (or at once with 130, for a Ctrl-C a
// while after the first). It must not be the default action of SIGINT, which kills the
// process where it stands.
func TestChatCtrlCWhileClosing(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	cfg, err := os.ReadFile(f.config)
	if err != nil {
		t.Fatal(err)
	}
	stubborn := strings.Replace(string(cfg), "args: [--log, "+f.log+"]", "args: [--log, "+f.log+", --ignore-sigterm, --linger, 1m]", 1)
	if stubborn == string(cfg) {
		t.Fatal("the fixture's server arguments were not found in its config")
	}
	if err := os.WriteFile(f.config, []byte(stubborn), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChatTerm(t, f.env, f.args()...)
	c.expect("> ")
	c.send("/exit")
	exited := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(exited) }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(chatReady)
	for waiting := true; waiting; {
		select {
		case <-exited:
			waiting = false
		case <-tick.C:
			_, _ = c.tty.Write([]byte{0x03})
		case <-deadline:
			_ = c.cmd.Process.Kill()
			<-exited
			t.Fatal("the chat did not end")
		}
	}
	ws := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("the chat was killed by %v while closing, not ended by its own handler", ws.Signal())
	}
	if code := ws.ExitStatus(); code != exitInterrupt {
		t.Errorf("the chat interrupted while closing exited %d, want %d", code, exitInterrupt)
	}
}

// TestChatEndpointCredentialsNotPrinted gives the chat an endpoint whose URL carries
// credentials (a proxy's basic auth); neither the start line nor a model error shows them.
func TestChatEndpointCredentialsNotPrinted(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	base := strings.Replace(f.model.URL, "http://", "http://user:sk-url-secret@", 1)
	cmd := exec.Command("agentpool", "--config", f.config, "chat", "--base-url", base, "--model", "local-model")
	cmd.Env = f.env
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("hello\nrate me\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chat: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok: hello") || !strings.Contains(string(out), "429") {
		t.Errorf("the chat did not answer, then report the 429:\n%s", out)
	}
	if strings.Contains(string(out), "sk-url-secret") {
		t.Errorf("the endpoint's password was printed:\n%s", out)
	}
}

// TestChatHelpShadowedCommand: a view command named like one of chat's own (a skill "exit")
// cannot be reached by that name, /exit quits; /help lists it under the name that reaches it,
// which expands it.
func TestChatHelpShadowedCommand(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	exit := filepath.Join(filepath.Dir(filepath.Dir(f.skill)), "exit", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(exit), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exit, []byte("---\nname: exit\ndescription: Plan an exit strategy.\n---\nPlan the exit.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("agentpool", f.args()...)
	cmd.Env = f.env
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("/help\n/skill:exit\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	var listed []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Plan an exit strategy.") {
			listed = append(listed, strings.Fields(l)[0])
		}
	}
	if !slices.Equal(listed, []string{"/skill:exit"}) {
		t.Errorf("/help lists the skill exit as %q, want [/skill:exit]:\n%s", listed, out)
	}
	if !strings.Contains(out, "ok: ") || !strings.Contains(out, "Plan the exit.") {
		t.Errorf("/skill:exit did not expand the skill:\n%s\n%s", out, stderr.String())
	}
}
