package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
)

// A model that repeats a tool-call id within a step, or whose generated ids collide with the
// history's (a new turn restarts the step count), must not leave two calls with one id:
// results are paired by id, and Anthropic rejects a conversation with duplicate tool_use ids.
func TestToolCallIDsUniqueInConversation(t *testing.T) {
	f := newFake("f").add("echo", echo)
	dup := func(*agent.Request) (*agent.Response, error) {
		return &agent.Response{ToolCalls: []agent.ToolCall{
			{Name: "echo", Arguments: json.RawMessage(`{"a":1}`)},
			{ID: "x", Name: "echo", Arguments: json.RawMessage(`{"b":2}`)},
			{ID: "x", Name: "echo", Arguments: json.RawMessage(`{"c":3}`)},
		}}, nil
	}
	m := newScript(dup, answer("one"), call("echo", `{}`), answer("two"))
	a, _ := setup(t, m, nil, f)
	r1, err := a.Run(context.Background(), &agent.Input{Prompt: "1"})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := a.Run(context.Background(), &agent.Input{Prompt: "2", History: r1.Messages})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, msg := range append(append([]agent.Message(nil), r1.Messages...), r2.Messages...) {
		for _, c := range msg.ToolCalls {
			if c.ID == "" || seen[c.ID] {
				t.Errorf("tool call id %q empty or used twice", c.ID)
			}
			seen[c.ID] = true
		}
	}
	// Each result answers its own call, in order.
	asst := r1.Messages[1]
	for i, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		r := r1.Messages[2+i]
		if r.ToolCallID != asst.ToolCalls[i].ID || r.Text() != want {
			t.Errorf("result %d = %+v, call %+v", i, r, asst.ToolCalls[i])
		}
	}
}

// Two agents of one session that spawn a subagent of the same name would share its scope
// {session, name}: the first to end closes it (CloseScope), and with it the capabilities the
// other is still running with. The second spawn is refused while the first runs, whichever
// agent spawns it; once it has ended, the name is free again.
func TestSubagentNameBusyAcrossParentsOfASession(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	hold := func(*agent.Request) (*agent.Response, error) {
		close(started)
		<-release
		return &agent.Response{Text: "held"}, nil
	}
	spec := agent.SubagentSpec{Name: "helper", Model: newScript(hold, answer("again"))}
	p1, reg := setup(t, newScript(), &agent.Options{Scope: ext.Scope{SessionID: "s1", AgentName: "p1"}})
	p2, err := agent.New(agent.Options{Model: newScript(), Registry: reg, Scope: ext.Scope{SessionID: "s1", AgentName: "p2"}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p1.Spawn(context.Background(), spec, "a")
		done <- err
	}()
	<-started
	_, err = p2.Spawn(context.Background(), spec, "b")
	close(release)
	if err1 := <-done; err1 != nil {
		t.Fatal(err1)
	}
	if !errors.Is(err, agent.ErrSubagentBusy) {
		t.Errorf("second spawn of helper in session s1 = %v, want ErrSubagentBusy", err)
	}
	// Another session's subagent of that name is another scope: not busy.
	p3, err := agent.New(agent.Options{Model: newScript(), Registry: reg, Scope: ext.Scope{SessionID: "s2", AgentName: "p1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p3.Spawn(context.Background(), agent.SubagentSpec{Name: "helper", Model: newScript(answer("s2"))}, "c"); err != nil {
		t.Errorf("spawn in another session: %v", err)
	}
	// The name is free once the first has ended.
	if _, err := p2.Spawn(context.Background(), spec, "d"); err != nil {
		t.Errorf("spawn after the first ended: %v", err)
	}
}

// read_resource always makes progress and never drops text: a limit smaller than a
// character used to cut before it, and the trailer sent the model back to the same offset
// for ever; text that is not UTF-8 (a Latin-1 file read as text) was skipped whole looking
// for a character boundary, and the model was told it had been shown.
func TestReadResourceCutsMakeProgress(t *testing.T) {
	f := newFake("store")
	f.res["mem://e"] = ext.ResourceContents{URI: "mem://e", MIMEType: "text/plain", Text: "aéb"}
	latin1 := strings.Repeat("\xa9", 10) // ten copyright signs in Latin-1: no UTF-8 boundary anywhere
	f.res["mem://latin1"] = ext.ResourceContents{URI: "mem://latin1", MIMEType: "text/plain", Text: latin1}
	m := newScript(call(
		"read_resource", `{"uri":"mem://e","offset":1}`,
		"read_resource", `{"uri":"mem://latin1"}`,
	), answer("ok"))
	a, _ := setup(t, m, &agent.Options{ResourceTextLimit: 1}, f)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "read"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "é\n\n[mem://e: bytes 1-3 of 4 shown; call read_resource with offset=3 for the rest]"; res.Messages[2].Text() != want {
		t.Errorf("é with a 1-byte limit = %q\nwant %q", res.Messages[2].Text(), want)
	}
	if want := "\xa9\n\n[mem://latin1: bytes 0-1 of 10 shown; call read_resource with offset=1 for the rest]"; res.Messages[3].Text() != want {
		t.Errorf("latin-1 = %q\nwant %q", res.Messages[3].Text(), want)
	}
}
