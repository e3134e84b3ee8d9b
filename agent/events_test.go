package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
)

// TestEventsInOrderThenEnd: a loop over Events sees the run's events as the Observer would,
// then one EventEnd holding the Result and the run's error.
func TestEventsInOrderThenEnd(t *testing.T) {
	var observed []agent.EventKind
	m := newScript(call("echo", `{"x":1}`), answer("done"))
	a, _ := setup(t, m, &agent.Options{Observer: func(e agent.Event) { observed = append(observed, e.Kind) }},
		newFake("t").add("echo", echo))
	var kinds []agent.EventKind
	var end *agent.Result
	for e, err := range a.Events(context.Background(), &agent.Input{Prompt: "go"}) {
		kinds = append(kinds, e.Kind)
		if e.Kind == agent.EventEnd {
			if err != nil {
				t.Fatal(err)
			}
			end = e.End
		}
	}
	want := []agent.EventKind{agent.EventToolCall, agent.EventToolResult, agent.EventEnd}
	if len(kinds) != len(want) || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	if len(observed) != 2 {
		t.Errorf("the Observer saw %v, want the two tool events too", observed)
	}
	if end == nil || end.Stop != agent.StopDone || end.Text != "done" || len(end.Messages) != 4 {
		t.Fatalf("end result %+v", end)
	}
	if got := end.Messages[2].Text(); got != `{"x":1}` {
		t.Errorf("tool result %q, want the echo", got)
	}
}

// TestEventsBreakEndsRun: breaking out of the loop while a tool call runs cancels the run: the
// call's context ends, the turn's capabilities are closed, and no goroutine is left (goleak).
func TestEventsBreakEndsRun(t *testing.T) {
	started := make(chan struct{}, 2)
	cancelled := make(chan struct{}, 2)
	slow := newFake("t").add("wait", func(ctx context.Context, _ json.RawMessage) (*ext.ToolResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, ctx.Err()
	})
	turnCap := newFake("turn")
	m := newScript(call("wait", `{}`, "wait", `{}`), answer("never"))
	a, _ := setup(t, m, nil, slow)
	n := 0
	for e, err := range a.Events(context.Background(), &agent.Input{Prompt: "go", TurnCapabilities: []ext.Capability{turnCap}}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == agent.EventEnd {
			t.Fatal("the run ended by itself")
		}
		n++
		if n == 2 {
			// The first call's event was taken: its tool runs now, and stays until cancelled.
			<-started
			break
		}
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("the loop ended while the tool call still ran")
	}
	if !turnCap.isClosed() {
		t.Error("the turn's capability is still open after the loop ended")
	}
	if len(m.requests()) != 1 {
		t.Errorf("the model was asked %d times, want once: the run went on after the break", len(m.requests()))
	}
}

// TestEventsPanicEndsRun: a loop body that panics has the panic go on up, and the run is
// cancelled and waited for first: its tool call's context ends, the turn's capabilities are
// closed, and no goroutine is left blocked handing over the next event.
func TestEventsPanicEndsRun(t *testing.T) {
	started := make(chan struct{}, 2)
	cancelled := make(chan struct{}, 2)
	slow := newFake("t").add("wait", func(ctx context.Context, _ json.RawMessage) (*ext.ToolResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, ctx.Err()
	})
	turnCap := newFake("turn")
	m := newScript(call("wait", `{}`, "wait", `{}`), answer("never"))
	a, _ := setup(t, m, nil, slow)
	got := func() (p any) {
		defer func() { p = recover() }()
		n := 0
		for range a.Events(context.Background(), &agent.Input{Prompt: "go", TurnCapabilities: []ext.Capability{turnCap}}) {
			n++
			if n == 2 {
				<-started
				panic("body")
			}
		}
		return nil
	}()
	if got != "body" {
		t.Fatalf("recovered %v, want the body's panic", got)
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("the panic went on while the tool call still ran")
	}
	if !turnCap.isClosed() {
		t.Error("the turn's capability is still open after the panic")
	}
}
