package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultMaxSteps          = 20
	DefaultMaxParallel       = 16
	DefaultResourceTextLimit = 32 << 10
	DefaultResourceBlobLimit = 1 << 20
	DefaultListPageSize      = 50
	// DefaultAgentName is the agent's name when Options.Scope.AgentName is empty.
	DefaultAgentName = "main"
)

// Errors a Run returns, wrapped with the agent's name.
var (
	// ErrMaxSteps reports a run stopped at its step limit (Result.Stop is StopMaxSteps).
	ErrMaxSteps = errors.New("step limit reached")
	// ErrSubagentBusy reports a spawn of a subagent whose name is already running in the
	// session: the two would share, and close, one agent scope.
	ErrSubagentBusy = errors.New("subagent already running")
)

// StopReason says why a run ended.
type StopReason string

// The stop reasons.
const (
	// StopDone: the model answered without asking for a tool. The error is nil.
	StopDone StopReason = "done"
	// StopMaxSteps: the step limit was reached; the error wraps ErrMaxSteps.
	StopMaxSteps StopReason = "max_steps"
	// StopInterrupted: the run's context ended; the error is the context's.
	StopInterrupted StopReason = "interrupted"
	// StopError: the model failed, or the turn's capabilities could not be registered.
	StopError StopReason = "error"
)

// Options configures an Agent. Model, Registry and Scope.SessionID are required; zero fields
// mean the defaults above (Scope.AgentName: DefaultAgentName). host.Session.NewAgent fills in
// the Registry, the Scope and the view options of a session the host opened.
type Options struct {
	Model    Model
	Registry *ext.Registry
	// Cache serves the views; nil means a cache of the agent's own. Share one between the
	// agents of a program so each scope is compiled once.
	Cache *view.Cache
	// Scope is the agent's: its session and its name (empty: DefaultAgentName). Turn scopes
	// are derived from it.
	Scope ext.Scope
	// Instructions is the agent's own system prompt, placed first in Instructions.Static.
	Instructions string
	// MaxSteps bounds the model steps of one run.
	MaxSteps int
	// MaxParallel bounds the tool calls of one step that run at once.
	MaxParallel int
	// ResourceTextLimit is how many bytes of a text resource read_resource returns at once;
	// ResourceBlobLimit how large a binary resource it returns at all.
	ResourceTextLimit, ResourceBlobLimit int
	// ListPageSize is how many entries one list_resources call returns.
	ListPageSize int
	// Subagents are offered to the model through the delegate tool (none: no such tool).
	Subagents []SubagentSpec
	// Observer, when set, receives the run's events. It is called from the run's goroutines,
	// concurrently for the calls of one step, and must not block.
	Observer func(Event)
	// Permit, when set, is asked before each tool call is made (after its EventToolCall), with
	// that event and the tool called (through call_tool: the tool it reaches); search_tools is
	// not asked about. An error means the call is not made: the model gets an error result
	// saying so, with the error's text. Subagents ask it too. It may block (an editor asking
	// its user) and should return when ctx ends.
	Permit func(ctx context.Context, call Event, tool ToolDef) error
	// Tools is how the model is offered the view's tools (package exposure): all of them (the
	// zero Config), or in search mode the always-on ones with a search tool whose finds are
	// offered from the next step on, for the rest of the agent's conversation, and a call tool.
	Tools exposure.Config
}

// Agent runs turns of one agent at one scope. It is safe for concurrent use, though runs of
// one agent usually follow each other (a conversation).
type Agent struct {
	o     Options
	cache *view.Cache
	exp   *exposure.Session // the tools offered (Options.Tools) and those activated
	turns *atomic.Int64     // shared with the copies Events runs
}

// New checks opts and returns an agent. It starts nothing. The session must be one its
// registry's program has opened where that program checks (ext.Registry.CheckSession: a
// host's session with servers of its own, host.ErrSessionNotOpen); Run checks it again.
func New(opts Options) (*Agent, error) {
	o := opts
	if o.Scope.AgentName == "" {
		o.Scope.AgentName = DefaultAgentName
	}
	switch {
	case o.Model == nil:
		return nil, errors.New("agent: no model")
	case o.Registry == nil:
		return nil, errors.New("agent: no registry")
	case o.Scope.SessionID == "":
		return nil, fmt.Errorf("agent: scope %s: an agent runs in a session", o.Scope)
	case o.Scope.TurnID != "":
		return nil, fmt.Errorf("agent: scope %s: the turn is the run's, not the agent's", o.Scope)
	}
	if err := o.Registry.CheckSession(o.Scope.SessionID); err != nil {
		return nil, fmt.Errorf("agent %s: %w", o.Scope.AgentName, err)
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.MaxParallel <= 0 {
		o.MaxParallel = DefaultMaxParallel
	}
	if o.ResourceTextLimit <= 0 {
		o.ResourceTextLimit = DefaultResourceTextLimit
	}
	if o.ResourceBlobLimit <= 0 {
		o.ResourceBlobLimit = DefaultResourceBlobLimit
	}
	if o.ListPageSize <= 0 {
		o.ListPageSize = DefaultListPageSize
	}
	seen := map[string]bool{}
	for _, s := range o.Subagents {
		if s.Name == "" || s.Name == o.Scope.AgentName || seen[s.Name] {
			return nil, fmt.Errorf("agent %s: subagent name %q: empty, the agent's own, or twice", o.Scope.AgentName, s.Name)
		}
		seen[s.Name] = true
	}
	o.Subagents = append([]SubagentSpec(nil), o.Subagents...)
	c := o.Cache
	if c == nil {
		c = view.NewCache(o.Registry, nil)
	}
	return &Agent{o: o, cache: c, exp: exposure.NewSession(o.Tools, nil, false), turns: new(atomic.Int64)}, nil
}

// Scope returns the agent's scope.
func (a *Agent) Scope() ext.Scope { return a.o.Scope }

// Input is one turn.
type Input struct {
	// Prompt is the user's text. It also selects the turn's skills (view.TurnInstructions).
	Prompt string
	// Messages, when set, are the turn's input instead of one user message holding Prompt:
	// an expanded command (CommandInput) is role-tagged messages.
	Messages []Message
	// History is the conversation so far (earlier results' Messages); it is not modified.
	History []Message
	// TurnID names the turn scope; empty means "turn-<n>", counted per agent.
	TurnID string
	// TurnCapabilities are this turn's dynamic capabilities: registered at LevelTurn before
	// the first step and closed (Registry.CloseScope) when the turn ends, however it ends.
	// The run owns them: one that cannot be registered is closed too.
	TurnCapabilities []ext.Capability
}

// Result is what a run produced. Run always returns one, whatever the error.
type Result struct {
	// Text is the model's last answer (StopDone), or "" .
	Text string `json:"text"`
	// Messages are this turn's messages: the user's prompt, then each completed step's
	// assistant message and tool results. A step cut short by an interruption is not in
	// them: no partial tool result, and every tool call has its answer, so Messages can be
	// the next turn's History as they are.
	Messages []Message  `json:"messages"`
	Stop     StopReason `json:"stop"`
	// Steps counts the model steps that completed.
	Steps int `json:"steps"`
	// Problems are what the views of the run left out (view.Problem) and tools of a view not
	// offered because an agent tool has their name, each once.
	Problems []string `json:"problems,omitempty"`
}

// EventKind says what an Event reports.
type EventKind string

// The event kinds.
const (
	// EventDelta: a piece of streamed model text (Text).
	EventDelta EventKind = "delta"
	// EventToolCall: a tool call starts (Call, Origin).
	EventToolCall EventKind = "tool_call"
	// EventToolResult: a tool call ended (Call, Origin, Result). Not sent for a call cut
	// short by an interruption.
	EventToolResult EventKind = "tool_result"
	// EventRetry: the model's request is retried; Text says what failed and how long the wait
	// is (Retrying).
	EventRetry EventKind = "retry"
	// EventThought: a piece of the model's streamed reasoning (Text), from a
	// ReasoningStreamer. It is not part of the answer nor of the conversation's history.
	EventThought EventKind = "thought"
)

// Event is something that happened during a run, for a UI (a terminal, an ACP client).
type Event struct {
	Kind EventKind
	// Agent is the name of the agent whose run it is (a subagent's events carry its name).
	Agent  string
	Step   int
	Text   string
	Call   ToolCall
	Origin ext.Origin
	Result *Message
	// End is the run's Result, in the EventEnd of Events.
	End *Result
}

// Run runs one turn: each step compiles the view (through the cache, so it costs a stamp
// comparison unless something changed), asks the model, and runs the tool calls it asked for
// concurrently, until the model answers without tools, the step limit, an error of the model
// or the end of ctx. See the package doc for what each ending returns.
func (a *Agent) Run(ctx context.Context, in *Input) (*Result, error) {
	if in == nil {
		in = &Input{}
	}
	res := &Result{}
	msgs := make([]Message, 0, len(in.History)+1+2*a.o.MaxSteps)
	msgs = append(msgs, in.History...)
	if len(in.Messages) > 0 {
		msgs = append(msgs, in.Messages...)
	} else {
		msgs = append(msgs, UserMessage(in.Prompt))
	}
	first := len(in.History)
	finish := func(stop StopReason, err error) (*Result, error) {
		res.Stop = stop
		res.Messages = msgs[first:]
		return res, err
	}
	if err := a.o.Registry.CheckSession(a.o.Scope.SessionID); err != nil {
		return finish(StopError, fmt.Errorf("agent %s: %w", a.o.Scope.AgentName, err))
	}

	scope := a.o.Scope
	if len(in.TurnCapabilities) > 0 {
		turn := in.TurnID
		if turn == "" {
			turn = fmt.Sprintf("turn-%d", a.turns.Add(1))
		}
		scope.TurnID = turn
		defer func() {
			_ = a.o.Registry.CloseScope(context.WithoutCancel(ctx), scope)
			a.cache.Forget(scope)
		}()
		for i, c := range in.TurnCapabilities {
			if err := a.o.Registry.Register(c, ext.LevelTurn, scope); err != nil {
				closeAll(ctx, in.TurnCapabilities[i:]) // those registered are closed with the scope
				return finish(StopError, fmt.Errorf("agent %s: turn %s: %w", scope.AgentName, scope.TurnID, err))
			}
		}
	}

	var st stepState
	problems := map[string]bool{}
	var ids map[string]bool // the tool-call ids used in the conversation, made at the first call
	for step := 0; ; step++ {
		if step == a.o.MaxSteps {
			return finish(StopMaxSteps, fmt.Errorf("agent %s: %w after %d steps", scope.AgentName, ErrMaxSteps, step))
		}
		v, err := a.cache.Get(ctx, scope)
		if err != nil {
			if ctx.Err() != nil {
				return finish(StopInterrupted, ctx.Err())
			}
			return finish(StopError, fmt.Errorf("agent %s: %w", scope.AgentName, err))
		}
		if v != st.view || st.relist.Swap(false) {
			a.prepare(ctx, &st, v, in.Prompt)
			for _, p := range st.problems {
				if !problems[p] {
					problems[p] = true
					res.Problems = append(res.Problems, p)
				}
			}
		}
		req := &Request{Instructions: st.instructions, Messages: msgs, Tools: st.defs}
		resp, err := a.generate(ctx, req, step)
		if ctx.Err() != nil {
			return finish(StopInterrupted, ctx.Err())
		}
		if err != nil {
			return finish(StopError, &ModelError{Agent: scope.AgentName, Err: err})
		}
		if resp == nil {
			resp = &Response{}
		}
		asst := Message{Role: RoleAssistant, ToolCalls: resp.ToolCalls}
		if resp.Text != "" {
			asst.Content = []ext.Content{{Type: ext.ContentText, Text: resp.Text}}
		}
		if len(resp.ToolCalls) == 0 {
			msgs = append(msgs, asst)
			res.Steps++
			res.Text = resp.Text
			return finish(StopDone, nil)
		}
		asst.ToolCalls = append([]ToolCall(nil), resp.ToolCalls...)
		if ids == nil {
			ids = callIDs(in.History)
		}
		for i := range asst.ToolCalls {
			// Results are paired with calls by id, and APIs reject a conversation that uses
			// one twice (Anthropic's tool_use ids): an empty id, or one already used in this
			// conversation (a model repeating itself, or "call_0_0" of an earlier turn),
			// gets a fresh one.
			if id := asst.ToolCalls[i].ID; id == "" || ids[id] {
				asst.ToolCalls[i].ID = freshID(ids, step, i)
			}
			ids[asst.ToolCalls[i].ID] = true
		}
		results, failed := a.callTools(ctx, &st, asst.ToolCalls, step)
		if ctx.Err() != nil {
			return finish(StopInterrupted, ctx.Err()) // the step is dropped whole: no partial result
		}
		if failed {
			// A call the view could not make (a lost connection, a degraded server) may mean
			// the view is out of date before any event says so: the next step compiles
			// afresh, which asks the server and leaves it out if it stays down.
			a.cache.Forget(scope)
		}
		msgs = append(msgs, asst)
		msgs = append(msgs, results...)
		res.Steps++
	}
}

func (a *Agent) generate(ctx context.Context, req *Request, step int) (*Response, error) {
	if a.o.Observer != nil {
		ctx = withRetryReport(ctx, func(text string) {
			a.observe(Event{Kind: EventRetry, Step: step, Text: text})
		})
	}
	if rs, ok := a.o.Model.(ReasoningStreamer); ok && a.o.Observer != nil {
		name := a.o.Scope.AgentName
		return rs.StreamReasoning(ctx, req, func(text string) {
			a.o.Observer(Event{Kind: EventDelta, Agent: name, Step: step, Text: text})
		}, func(text string) {
			a.o.Observer(Event{Kind: EventThought, Agent: name, Step: step, Text: text})
		})
	}
	if sm, ok := a.o.Model.(StreamingModel); ok && a.o.Observer != nil {
		return sm.Stream(ctx, req, func(text string) {
			a.o.Observer(Event{Kind: EventDelta, Agent: a.o.Scope.AgentName, Step: step, Text: text})
		})
	}
	return a.o.Model.Generate(ctx, req)
}

// stepState is what a run derived from the view it saw last, rebuilt only when the cache
// returns another view: the tools offered and the instructions.
type stepState struct {
	view         *view.View
	defs         []ToolDef
	own          map[string]ownTool
	origins      map[string]ext.Origin
	instructions Instructions
	problems     []string
	relist       atomic.Bool // a search activated tools: the next step offers them
}

func (a *Agent) prepare(ctx context.Context, st *stepState, v *view.View, prompt string) {
	st.view = v
	st.problems = st.problems[:0]
	for _, p := range v.Problems {
		st.problems = append(st.problems, p.String())
	}
	var shadowed []string
	st.defs, st.own, shadowed = a.offer(v)
	st.problems = append(st.problems, shadowed...)
	st.origins = make(map[string]ext.Origin, len(st.defs))
	for _, d := range st.defs {
		st.origins[d.Name] = d.Origin
	}
	static := strings.TrimSpace(a.o.Instructions)
	if s := v.Instructions.Static; s != "" {
		if static != "" {
			static += "\n\n"
		}
		static += s
	}
	dynamic := v.Instructions.Dynamic
	if prompt != "" {
		d, err := v.TurnInstructions(ctx, prompt)
		if err != nil {
			st.problems = append(st.problems, "instructions: "+err.Error())
		}
		dynamic = d
	}
	st.instructions = Instructions{Static: static, Dynamic: dynamic}
}

// callTools runs one step's calls, at most MaxParallel at once, and returns their results in
// the calls' order, and whether a call could not be made (not a tool's own isError).
func (a *Agent) callTools(ctx context.Context, st *stepState, calls []ToolCall, step int) ([]Message, bool) {
	out := make([]Message, len(calls))
	var failed atomic.Bool
	sem := make(chan struct{}, a.o.MaxParallel)
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			origin := st.origins[c.Name]
			a.observe(Event{Kind: EventToolCall, Step: step, Call: c, Origin: origin})
			m, ok := a.callTool(ctx, st, c)
			if !ok {
				failed.Store(true)
			}
			out[i] = m
			if ctx.Err() == nil {
				a.observe(Event{Kind: EventToolResult, Step: step, Call: c, Origin: origin, Result: &out[i]})
			}
		})
	}
	wg.Wait()
	return out, failed.Load()
}

func (a *Agent) observe(e Event) {
	if a.o.Observer != nil {
		e.Agent = a.o.Scope.AgentName
		a.o.Observer(e)
	}
}

// callTool makes one call. A failure is the model's to see, as a tool message with IsError
// set: ok is false when the call could not be made at all.
func (a *Agent) callTool(ctx context.Context, st *stepState, c ToolCall) (m Message, ok bool) {
	m = Message{Role: RoleTool, ToolCallID: c.ID, ToolName: c.Name}
	args := c.Arguments
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage(`{}`)
	}
	if !isObject(args) {
		return errorMessage(m, fmt.Sprintf("tool %s: %s: %s", c.Name, notAnObject(args), truncate(string(args), 200))), true
	}
	call := &ext.ToolCall{Name: c.Name, Arguments: args}
	if r, relist, ok := a.exp.CallOwn(st.view, call); ok {
		if relist {
			st.relist.Store(true)
		}
		return resultMessage(m, r), true
	}
	call, bad := a.exp.Unwrap(st.view, call)
	if bad != nil {
		return resultMessage(m, bad), true
	}
	if a.o.Permit != nil {
		own, known := st.own[call.Name]
		def := own.def
		if vt, ok := st.view.Tool(call.Name); ok && !known {
			def, known = ToolDefOf(vt), true
		}
		if known {
			e := Event{Kind: EventToolCall, Agent: a.o.Scope.AgentName, Call: c, Origin: st.origins[c.Name]}
			if err := a.o.Permit(ctx, e, def); err != nil {
				return errorMessage(m, fmt.Sprintf("tool %s was not run: %v", call.Name, err)), true
			}
		}
	}
	if t, own := st.own[c.Name]; own {
		r, err := t.run(ctx, st.view, args)
		if err != nil {
			return errorMessage(m, fmt.Sprintf("tool %s: %v", c.Name, err)), true
		}
		return resultMessage(m, r), true
	}
	if call.Name == c.Name { // by its name, not through the call tool: only what is offered
		if err := a.exp.NotListed(st.view, c.Name); err != nil {
			return errorMessage(m, err.Error()), true
		}
	}
	r, err := st.view.CallTool(ctx, call)
	if err != nil {
		if errors.Is(err, ext.ErrNotFound) {
			if _, offered := st.view.Tool(call.Name); !offered {
				return errorMessage(m, fmt.Sprintf("tool %s: no such tool in this step's toolset", call.Name)), true
			}
		}
		return errorMessage(m, fmt.Sprintf("tool %s failed: %v", c.Name, err)), false
	}
	return resultMessage(m, r), true
}

// callIDs returns the tool-call ids the messages use.
func callIDs(msgs []Message) map[string]bool {
	ids := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			ids[c.ID] = true
		}
	}
	return ids
}

// freshID returns "call_<step>_<n>", or, when the conversation has it already, the first of
// "call_<step>_<n>_<k>" it has not.
func freshID(ids map[string]bool, step, n int) string {
	id := fmt.Sprintf("call_%d_%d", step, n)
	for k := 2; ids[id]; k++ {
		id = fmt.Sprintf("call_%d_%d_%d", step, n, k)
	}
	return id
}

// closeAll closes capabilities the run owns but could not register, under a context that is
// not cancelled with the run.
func closeAll(ctx context.Context, caps []ext.Capability) {
	for _, c := range caps {
		if c != nil {
			_ = c.Close(context.WithoutCancel(ctx))
		}
	}
}

// isObject reports whether args is one JSON object, without decoding it (a step's calls are
// on the hot path).
func isObject(args json.RawMessage) bool {
	t := bytes.TrimSpace(args)
	return len(t) > 1 && t[0] == '{' && json.Valid(t)
}

func errorMessage(m Message, text string) Message {
	m.IsError = true
	m.Content = []ext.Content{{Type: ext.ContentText, Text: text}}
	return m
}

func resultMessage(m Message, r *ext.ToolResult) Message {
	if r == nil {
		return m
	}
	m.Content = r.Content
	m.IsError = r.IsError
	m.StructuredContent = r.StructuredContent
	return m
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
