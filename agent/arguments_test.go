package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// Arguments that are not JSON stay in the history as the model sent them, and the model is
// told what is wrong and at which byte; the history still marshals.
func TestInvalidArgumentsKeptAsSent(t *testing.T) {
	f := newFake("f").add("echo", echo)
	bad := `{"text": "a",}`
	m := newScript(call("echo", bad), answer("sorry"))
	a, _ := setup(t, m, nil, f)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Messages[1].ToolCalls[0].Arguments); got != bad {
		t.Errorf("history arguments %q, want %q as sent", got, bad)
	}
	want := "tool echo: the arguments are not valid JSON: invalid character '}' looking for beginning of object key string at offset 14 (send one JSON object): " + bad
	if r := res.Messages[2]; !r.IsError || r.Text() != want {
		t.Errorf("result %q, want %q", r.Text(), want)
	}
	b, err := json.Marshal(res.Messages)
	if err != nil {
		t.Fatalf("the history does not marshal: %v", err)
	}
	var back []agent.Message
	if err := json.Unmarshal(b, &back); err != nil || len(back) != len(res.Messages) {
		t.Fatalf("the history does not read back: %v", err)
	}
}
