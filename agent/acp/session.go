package acp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	sdk "github.com/coder/acp-go-sdk"
)

// metaKey is the key under which agentpool puts what ACP has no field for in a _meta object:
// a tool call's origin and agent, a command's origin, a new session's problems.
const metaKey = "agentpool"

// session is one ACP session: a Session scope {id, AgentName}, its agent, its conversation,
// and the goroutine that keeps its client's command list current.
type session struct {
	c     *conn
	id    string
	scope ext.Scope
	agent *agent.Agent

	turnMu  sync.Mutex // held by a running turn; guards history and ended
	history []agent.Message
	ended   bool

	// ctx ends when the session does (end): a prompt still waiting for the turn then gives up.
	ctx  context.Context
	stop context.CancelFunc

	mu      sync.Mutex
	cancels map[uint64]context.CancelFunc // the prompts running or waiting for the turn
	prompts uint64                        // counts the prompts, keying cancels
	turn    *turn                         // the running turn's state; nil between turns
	calls   uint64                        // counts the tool calls, naming them for the editor
	allowed map[string]bool               // tools allowed always: "<origin location> <name>"

	problems []string // what session/new left out, told to the user once the session is out

	stopWatch context.CancelFunc
	watchDone chan struct{}
	endOnce   sync.Once
}

// NewSession opens a session: OpenSession (the host's session-scoped servers), the client's
// MCP servers (AddServer), a first compile of the view, which starts the servers, and the
// agent. A server the host refuses or that fails to start is a problem: logged, listed in the
// response's _meta, and the session goes on without it; only when every server the client
// declared was refused is the session refused (its servers are the point of it).
func (c *conn) NewSession(ctx context.Context, p sdk.NewSessionRequest) (_ sdk.NewSessionResponse, err error) {
	o := c.srv.o
	id := "acp-" + rand.Text()
	s := &session{c: c, id: id, scope: ext.Scope{SessionID: id, AgentName: o.AgentName}, watchDone: make(chan struct{}),
		cancels: map[uint64]context.CancelFunc{}, allowed: map[string]bool{}}
	s.ctx, s.stop = context.WithCancel(context.Background())
	if !c.enter() {
		return sdk.NewSessionResponse{}, errors.New("acp: the connection is closing")
	}
	defer c.opening.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.ctx, cancel)()
	announced := c.out.expect(id)
	opened := false
	defer func() {
		if err != nil {
			s.stop()
			c.out.drop(id)
			close(s.watchDone)
			if opened {
				s.release()
			}
		}
	}()
	if o.OpenSession != nil {
		if err := o.OpenSession(ctx, id); err != nil {
			return sdk.NewSessionResponse{}, fmt.Errorf("open session: %w", err)
		}
	}
	opened = true
	var problems []string
	refused := 0
	for _, m := range p.McpServers {
		srv, err := fromACP(m)
		if err == nil && o.AddServer == nil {
			err = errors.New("this agent takes no MCP server from its client")
		}
		if err == nil {
			err = o.AddServer(ctx, id, srv)
		}
		if err != nil {
			refused++
			problems = append(problems, fmt.Sprintf("mcp server %q refused: %v", srv.Name, err))
		}
	}
	if refused > 0 && refused == len(p.McpServers) {
		return sdk.NewSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": strings.Join(problems, "; ")})
	}
	a, err := agent.New(agent.Options{Model: o.Model, Registry: o.Registry, Cache: c.srv.cache, Scope: s.scope,
		Instructions: o.Instructions, MaxSteps: o.MaxSteps, Observer: s.observe, Permit: s.permit, Tools: o.Tools})
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s.agent = a
	// Subscribed before the first compile, so that no change between the two is missed.
	wctx, stopWatch := context.WithCancel(context.Background())
	events := o.Registry.Changes(wctx, s.scope)
	v, err := c.srv.cache.Get(ctx, s.scope)
	if err != nil {
		stopWatch()
		return sdk.NewSessionResponse{}, err
	}
	for _, pr := range v.Problems {
		problems = append(problems, pr.String())
	}
	for _, pr := range problems {
		c.srv.log.Error("session problem", "session", id, "problem", pr)
	}
	s.problems = problems
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		stopWatch()
		return sdk.NewSessionResponse{}, errors.New("acp: the connection is closing")
	}
	c.sessions[id] = s
	s.stopWatch = stopWatch
	c.mu.Unlock()
	go s.watch(wctx, events, announced)
	c.srv.log.Debug("session opened", "session", id, "cwd", p.Cwd, "servers", len(p.McpServers))
	resp := sdk.NewSessionResponse{SessionId: sdk.SessionId(id)}
	if len(problems) > 0 {
		resp.Meta = map[string]any{metaKey: map[string]any{"problems": problems}}
	}
	return resp, nil
}

// CloseSession ends a session (session/close): its turn is cancelled and its servers released.
func (c *conn) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s, err := c.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	s.end()
	return sdk.CloseSessionResponse{}, nil
}

// testHookEnding, when a test sets it, runs as a session's end begins (its context cancelled).
var testHookEnding func()

// end ends the session once: its turn and the prompts waiting for it cancelled and waited
// for, its watch stopped, then release.
func (s *session) end() {
	s.endOnce.Do(func() {
		s.stop()
		if testHookEnding != nil {
			testHookEnding()
		}
		if s.stopWatch != nil {
			s.stopWatch()
		}
		<-s.watchDone
		s.turnMu.Lock() // the cancelled turn returns
		s.ended = true
		s.turnMu.Unlock()
		s.release()
		s.c.forget(s)
		s.c.srv.log.Debug("session ended", "session", s.id)
	})
}

// release gives back what the session holds: the host's session (CloseSession), the
// registry's scope of the session, its cached views.
func (s *session) release() {
	o := s.c.srv.o
	ctx, cancel := context.WithTimeout(context.Background(), o.CloseTimeout)
	defer cancel()
	var err error
	if o.CloseSession != nil {
		err = o.CloseSession(ctx, s.id)
	}
	if e := o.Registry.CloseScope(ctx, ext.Scope{SessionID: s.id}); e != nil && !errors.Is(e, ext.ErrClosed) {
		err = errors.Join(err, e)
	}
	s.c.srv.cache.ForgetSession(s.id)
	if err != nil {
		s.c.srv.log.Error("session ended with errors", "session", s.id, "err", err)
	}
}

// watch sends the session's commands (available_commands_update) once its session/new response
// is out, and again whenever a change event leaves the view with other commands (hot reload),
// until ctx ends. Events that arrive together are applied as one.
func (s *session) watch(ctx context.Context, events <-chan ext.ChangeEvent, announced <-chan struct{}) {
	defer close(s.watchDone)
	select {
	case <-announced:
	case <-ctx.Done():
		return
	}
	if len(s.problems) > 0 {
		text := "agentpool: this session goes on without what could not start:\n- " + strings.Join(s.problems, "\n- ") + "\n"
		if err := s.c.client().SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id),
			Update: sdk.UpdateAgentMessageText(text)}); err != nil {
			s.c.srv.log.Debug("session update not sent", "session", s.id, "err", err)
		}
	}
	var sent []byte
	update := func() {
		v, err := s.c.srv.cache.Get(ctx, s.scope)
		if err != nil {
			if ctx.Err() == nil {
				s.c.srv.log.Error("commands not updated", "session", s.id, "err", err)
			}
			return
		}
		cmds := availableCommands(v)
		b, _ := json.Marshal(cmds)
		if sent != nil && bytes.Equal(b, sent) {
			return
		}
		err = s.c.client().SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id),
			Update: sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
				SessionUpdate: "available_commands_update", AvailableCommands: cmds}}})
		if err == nil {
			sent = b
		}
	}
	update()
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		}
	drain:
		for {
			select {
			case _, ok := <-events:
				if !ok {
					return
				}
			default:
				break drain
			}
		}
		update()
	}
}

// availableCommands lists v's commands as ACP commands: the name the user types after "/",
// the description, the argument hint (or the arguments' names) as the input hint, and the
// command's origin in _meta.
func availableCommands(v *view.View) []sdk.AvailableCommand {
	out := make([]sdk.AvailableCommand, 0, len(v.Commands))
	for _, c := range v.Commands {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description,
			Meta: map[string]any{metaKey: map[string]any{"origin": c.Origin, "source": c.Source}}}
		if ac.Description == "" {
			ac.Description = c.Title
		}
		hint := c.ArgumentHint
		if hint == "" && len(c.Arguments) > 0 {
			names := make([]string, len(c.Arguments))
			for i, a := range c.Arguments {
				names[i] = a.Name
			}
			hint = strings.Join(names, " ")
		}
		if hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		out = append(out, ac)
	}
	return out
}

// fromACP converts an ACP server declaration. ACP-transport servers (an unstable part of the
// protocol) are refused.
func fromACP(m sdk.McpServer) (MCPServer, error) {
	switch {
	case m.Stdio != nil:
		env := make(map[string]string, len(m.Stdio.Env))
		for _, e := range m.Stdio.Env {
			env[e.Name] = e.Value
		}
		return MCPServer{Name: m.Stdio.Name, Type: TypeStdio, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env}, nil
	case m.Http != nil:
		return MCPServer{Name: m.Http.Name, Type: TypeHTTP, URL: m.Http.Url, Headers: headers(m.Http.Headers)}, nil
	case m.Sse != nil:
		return MCPServer{Name: m.Sse.Name, Type: TypeSSE, URL: m.Sse.Url, Headers: headers(m.Sse.Headers)}, nil
	case m.Acp != nil:
		return MCPServer{Name: m.Acp.Name}, errors.New("MCP over ACP is not supported")
	}
	return MCPServer{}, errors.New("no transport given")
}

func headers(hs []sdk.HttpHeader) map[string]string {
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}
