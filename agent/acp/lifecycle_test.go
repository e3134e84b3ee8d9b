package acp_test

import (
	"context"
	"encoding/json"
	"github.com/agentpool/agentpool/ext"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/acp"
	sdk "github.com/coder/acp-go-sdk"
)

// TestServeWaitsForSessionNew: a session/new still opening its session when the client goes
// (its host has opened the session, its servers are starting) is ended before Serve returns:
// a caller that closes the host once Serve has returned must not have a session closed under
// it, or left open, by a handler still running.
func TestServeWaitsForSessionNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var opened, closed []string
		var lateOpen, lateClose bool
		var served <-chan struct{}
		var f *fixture
		inOpen := make(chan struct{})
		opts := acp.Options{
			OpenSession: func(ctx context.Context, id string) error {
				close(inOpen)
				<-ctx.Done() // the client has gone, but the host opened the session anyway
				select {
				case <-served:
					mu.Lock()
					lateOpen = true
					mu.Unlock()
				case <-time.After(time.Second): // Serve should be waiting for this handler (the bubble's clock)
				}
				mu.Lock()
				defer mu.Unlock()
				opened = append(opened, id)
				return nil
			},
			CloseSession: func(_ context.Context, id string) error {
				mu.Lock()
				defer mu.Unlock()
				select {
				case <-served:
					lateClose = true
				default:
				}
				closed = append(closed, id)
				return nil
			},
		}
		m := &model{fn: func(*agent.Request) (*agent.Response, error) { return &agent.Response{Text: "ok"}, nil }}
		f = start(t, m, opts)
		served = f.served
		f.initialize(t)
		go f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: "/", McpServers: []sdk.McpServer{}})
		<-inOpen
		f.hangUp()
		mu.Lock()
		defer mu.Unlock()
		if lateOpen || lateClose {
			t.Errorf("Serve returned while session/new was still opening a session (OpenSession done after it: %v, CloseSession after it: %v)", lateOpen, lateClose)
		}
		if len(opened) != 1 || len(closed) != 1 || opened[0] != closed[0] {
			t.Errorf("when Serve returned: opened %v, closed %v; want the session opened and closed", opened, closed)
		}
	})
}

// TestCloseCancelsAWaitingPrompt: a prompt sent while another runs waits for it; when the
// session is closed then, the waiting prompt is cancelled too: it does not run a turn of its
// own (ask the model) while session/close waits for the session to end.
func TestCloseCancelsAWaitingPrompt(t *testing.T) {
	b := newBox()
	started, superseded, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	b.tools["hold"] = func(ctx context.Context, _ json.RawMessage) (*ext.ToolResult, error) {
		close(started)
		<-ctx.Done() // the SDK cancels a turn when the next prompt arrives
		close(superseded)
		<-release // a call that takes a while to give up
		return nil, ctx.Err()
	}
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) {
		if lastText(req) == "first" {
			return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "h1", Name: "hold"}}}, nil
		}
		return &agent.Response{Text: "ok"}, nil
	}}
	f := start(t, m, acp.Options{}, b)
	f.initialize(t)
	id := f.newSession(t)
	var wg sync.WaitGroup
	send := func(text string) {
		wg.Go(func() {
			f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		})
	}
	send("first")
	<-started
	send("second")
	<-superseded
	// The held call gives up only once the session's end has begun: released earlier, the
	// waiting prompt could take the turn before session/close even arrived, and rightly run.
	ending := make(chan struct{})
	var once sync.Once
	defer acp.SetTestHookEnding(func() { once.Do(func() { close(ending) }) })()
	closed := make(chan error, 1)
	go func() {
		_, err := f.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: id})
		closed <- err
	}()
	<-ending
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, r := range m.requests() {
		if lastText(r) == "second" {
			t.Error("the prompt waiting when the session was closed ran a turn: the model was asked")
		}
	}
}
