package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// SubagentSpec describes a subagent an agent can spawn (RFC-0051 sequence diagram 5).
type SubagentSpec struct {
	// Name is the subagent's agent name: its scope is {the parent's session, Name}, so it
	// sees what is registered for that name in config (static agent capabilities) as well as
	// its own agent-scoped ones. It is what the model passes to the delegate tool.
	Name string
	// Description tells the model what the subagent is for.
	Description string
	// Model runs the subagent; nil means the parent's.
	Model Model
	// Instructions is the subagent's own system prompt.
	Instructions string
	// MaxSteps bounds the subagent's run; zero means the parent's limit.
	MaxSteps int
	// Capabilities, when set, builds the subagent's agent-scoped capabilities for one spawn.
	// They are registered at LevelAgent in the parent's session (visible only to this
	// subagent in this session) before it runs, and unregistered and closed when it ends,
	// however it ends (on an error, it closes whatever it returns). MCP servers among them that lease from a connection pool give their
	// lease back: the pooled connection stays for whoever uses it next.
	Capabilities func(ctx context.Context) ([]ext.Capability, error)
}

// spawnKey is a subagent's scope in one registry: one spawn at a time may use it.
type spawnKey struct {
	reg   *ext.Registry
	scope ext.Scope
}

// spawning holds the subagent scopes in use, across the agents of a program.
var spawning = struct {
	sync.Mutex
	running map[spawnKey]bool
}{running: map[spawnKey]bool{}}

// Spawn runs prompt as a turn of the subagent spec in the agent's session and returns its
// result. The subagent shares the agent's registry and view cache; it has no delegate tool
// of its own (delegation is one level deep). Cancelling ctx interrupts it: its in-flight
// tool calls are cancelled upstream, and its result is StopInterrupted with no partial tool
// result. A subagent of the same name already running in this agent is ErrSubagentBusy.
func (a *Agent) Spawn(ctx context.Context, spec SubagentSpec, prompt string) (*Result, error) {
	if spec.Name == "" || spec.Name == a.o.Scope.AgentName {
		return &Result{Stop: StopError}, fmt.Errorf("agent %s: subagent name %q: empty or the agent's own", a.o.Scope.AgentName, spec.Name)
	}
	scope := ext.Scope{PoolID: a.o.Scope.PoolID, SessionID: a.o.Scope.SessionID, AgentName: spec.Name}
	// The scope is the session's, not this agent's: another agent of the session spawning the
	// same name would share it, and close it under this one.
	key := spawnKey{a.o.Registry, scope}
	spawning.Lock()
	if spawning.running[key] {
		spawning.Unlock()
		return &Result{Stop: StopError}, fmt.Errorf("agent %s: subagent %s: %w", a.o.Scope.AgentName, spec.Name, ErrSubagentBusy)
	}
	spawning.running[key] = true
	spawning.Unlock()
	defer func() {
		spawning.Lock()
		delete(spawning.running, key)
		spawning.Unlock()
	}()

	defer func() {
		_ = a.o.Registry.CloseScope(context.WithoutCancel(ctx), scope)
		a.cache.Forget(scope)
	}()
	if spec.Capabilities != nil {
		caps, err := spec.Capabilities(ctx)
		if err != nil {
			closeAll(ctx, caps)
			return &Result{Stop: StopError}, fmt.Errorf("agent %s: subagent %s: capabilities: %w", a.o.Scope.AgentName, spec.Name, err)
		}
		for i, c := range caps {
			if err := a.o.Registry.Register(c, ext.LevelAgent, scope); err != nil {
				closeAll(ctx, caps[i:]) // those registered are closed by CloseScope
				return &Result{Stop: StopError}, fmt.Errorf("agent %s: subagent %s: %w", a.o.Scope.AgentName, spec.Name, err)
			}
		}
	}
	o := a.o
	o.Scope = scope
	o.Instructions = spec.Instructions
	o.Subagents = nil
	o.Cache = a.cache
	if spec.Model != nil {
		o.Model = spec.Model
	}
	if spec.MaxSteps > 0 {
		o.MaxSteps = spec.MaxSteps
	}
	sub, err := New(o)
	if err != nil {
		return &Result{Stop: StopError}, err
	}
	return sub.Run(ctx, &Input{Prompt: prompt})
}

type delegateArgs struct {
	Agent  string `json:"agent"`
	Prompt string `json:"prompt"`
}

// delegateTool is the model's way to spawn: delegate {agent, prompt} runs the subagent and
// returns its answer; a subagent that fails (its model, its step limit) is an error result
// saying so, with its last answer if it had one.
func (a *Agent) delegateTool() (ownTool, bool) {
	if len(a.o.Subagents) == 0 {
		return ownTool{}, false
	}
	names := make([]string, len(a.o.Subagents))
	var desc strings.Builder
	desc.WriteString("Hand a task to a subagent, which works on it with its own tools and returns its answer. Several delegate calls in one step run at once. Subagents:")
	for i, s := range a.o.Subagents {
		names[i] = s.Name
		fmt.Fprintf(&desc, "\n- %s", s.Name)
		if s.Description != "" {
			fmt.Fprintf(&desc, ": %s", oneLine(s.Description))
		}
	}
	enum, _ := json.Marshal(names)
	schema := `{"type":"object","properties":{"agent":{"type":"string","enum":` + string(enum) +
		`,"description":"the subagent"},"prompt":{"type":"string","description":"the task, self-contained"}},"required":["agent","prompt"]}`
	return ownTool{def: ToolDef{Name: DelegateTool, Description: desc.String(), InputSchema: json.RawMessage(schema), Origin: agentOrigin},
		run: func(ctx context.Context, _ *view.View, raw json.RawMessage) (*ext.ToolResult, error) {
			var in delegateArgs
			if err := json.Unmarshal(raw, &in); err != nil {
				return nil, fmt.Errorf("arguments: %w", err)
			}
			for _, s := range a.o.Subagents {
				if s.Name != in.Agent {
					continue
				}
				res, err := a.Spawn(ctx, s, in.Prompt)
				if err != nil {
					if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
						return nil, err
					}
					msg := fmt.Sprintf("subagent %s stopped (%s): %v", s.Name, res.Stop, err)
					if last := lastText(res.Messages); last != "" {
						msg += "\nits last answer: " + last
					}
					return &ext.ToolResult{Content: []ext.Content{{Type: ext.ContentText, Text: msg}}, IsError: true}, nil
				}
				return ext.TextResult(res.Text), nil
			}
			return nil, fmt.Errorf("no subagent %q (there are: %s)", in.Agent, strings.Join(names, ", "))
		}}, true
}

func lastText(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			if t := msgs[i].Text(); t != "" {
				return t
			}
		}
	}
	return ""
}
