package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// TestChatRetryLine: a model answering 429 is retried with a line on the terminal for each
// retry, naming what failed, the wait and the attempt; the error after the last attempt says
// it retried, in one level.
func TestChatRetryLine(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	c := startChatTerm(t, f.env, f.args()...)
	c.expect("> ")
	c.send("rate me")
	c.expect("model: 429 Too Many Requests: scripted 429; retrying in 1ms (attempt 2 of 3)")
	c.expect("model: 429 Too Many Requests: scripted 429; retrying in 1ms (attempt 3 of 3)")
	// One level: the model and its endpoint, what it said, the attempts, what to do.
	c.expect(`error: model "local-model" at ` + f.model.URL + ": 429 Too Many Requests: scripted 429 (after 3 attempts); the endpoint is rate-limiting")
	c.expect("> ")
	c.send("hello")
	c.expect("ok: hello")
}

// TestChatInvalidJSONArguments: a model that sends arguments that are not JSON is told exactly
// what is wrong and where, and the history keeps its call as it sent it, so the next request
// shows the model its own mistake rather than a rewritten one.
func TestChatInvalidJSONArguments(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	c := startChatTerm(t, f.env, f.args()...)
	c.expect("> ")
	c.send("send bad json")
	c.expect(`[tool] fault__echo {"text":"ping`)
	c.expect("[result] fault__echo (error): tool fault__echo: the arguments are not valid JSON: unexpected end of JSON input at offset 15")
	c.expect("the tool said ")
	c.expect("> ")
	c.send("hello")
	c.expect("ok: hello")
	c.expect("> ")
	bodies := f.model.Requests()
	var last struct {
		Messages []struct {
			Role      string `json:"role"`
			Content   any    `json:"content"`
			ToolCalls []struct {
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[len(bodies)-1], &last); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, m := range last.Messages {
		for _, tc := range m.ToolCalls {
			sent = append(sent, tc.Function.Arguments)
		}
	}
	if len(sent) != 1 || sent[0] != badArguments {
		t.Errorf("the history sent back the call's arguments as %q, want %q as the model sent them", sent, badArguments)
	}
}

// TestChatCountsOfferedTools: the banner and /help count the tools the model is offered, the
// agent's own (read_resource, list_resources) with the view's: the same number the first
// request carries.
func TestChatCountsOfferedTools(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	cmd := exec.Command("agentpool", f.args()...)
	cmd.Env = f.env
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("/help\nhello\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat: %v\n%s", err, stderr.String())
	}
	reqs := requests(t, f.model)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	n := len(reqs[0].Tools)
	if want := fmt.Sprintf(": %d tools, ", n); !strings.Contains(stderr.String(), want) {
		t.Errorf("the banner does not count the %d tools offered:\n%s", n, stderr.String())
	}
	if want := fmt.Sprintf("the model is offered %d tools", n); !strings.Contains(stdout.String(), want) {
		t.Errorf("/help does not say %q:\n%s", want, stdout.String())
	}
}

// TestChatInterruptedTurnMarked: a turn cut short by Ctrl-C is marked in the history, so the
// next turn's model knows its last answer was cut off; and two Ctrl-C leave a running turn:
// the first cancels it, the second quits.
func TestChatInterruptedTurnMarked(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	c := startChatTerm(t, f.env, f.args()...)
	c.expect("> ")
	c.send("sleep please")
	c.expect("[tool] fault__sleep")
	waitLog(t, f.log, "begin ")
	c.interrupt()
	c.expect("[interrupted]")
	c.expect("> ")
	c.send("still there?")
	c.expect("ok: still there?")
	c.expect("> ")
	reqs := requests(t, f.model)
	var history []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role != "system" {
			history = append(history, m.Role+": "+contentText(m.Content))
		}
	}
	want := []string{"user: sleep please", "assistant: " + agent.InterruptedNote, "user: still there?"}
	if !slices.Equal(history, want) {
		t.Errorf("the history after an interrupted turn:\n%s\nwant:\n%s", strings.Join(history, "\n"), strings.Join(want, "\n"))
	}

	c.send("sleep please")
	c.expect("[tool] fault__sleep")
	c.interrupt()
	c.expect("[interrupted]")
	c.interrupt()
	if code := c.exitCode(); code != 0 {
		t.Errorf("chat left by two Ctrl-C in a turn exited %d, want 0", code)
	}
}

// TestChatErrorLinesAndOrigins: every error is an "error: " line (a command line that does not
// parse names where in its arguments), and every tool call names an origin, a tool the view
// does not have too.
func TestChatErrorLinesAndOrigins(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	cmd := exec.Command("agentpool", f.args()...)
	cmd.Env = f.env
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("/review \"unclosed\n/nope\ncall a ghost\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat: %v\n%s", err, stderr.String())
	}
	var errs []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "unterminated") || strings.Contains(l, "unknown command") {
			errs = append(errs, l)
		}
	}
	want := []string{
		`error: command /review: command line syntax error: unterminated double quote at byte offset 0 of the arguments "unclosed (nothing sent)`,
		"error: unknown command /nope (nothing sent; /help lists the commands)",
	}
	if !slices.Equal(errs, want) {
		t.Errorf("error lines:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
	if want := "[tool] ghost__tool {} (no such tool)\n"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
	}
}
