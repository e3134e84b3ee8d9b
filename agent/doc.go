// Package agent runs agents on the registry (RFC-0051 "AgentFactory"): a model-agnostic Model, a
// run loop whose every step sees the view of its scope as it is now, resource tools for the
// model, and delegation to subagents whose agent-scoped capabilities live as long as they run.
// It imports view, ext and exposure only; adapters to LLM SDKs are sub-packages that translate
// Request and Response:
//
//   - agent/openai: openai.New is a StreamingModel for any OpenAI-compatible chat-completions
//     endpoint (a 429 retried as Retry-After says); ChatParams and ResponsesParams
//     give a Request as the SDK's parameters.
//   - agent/anthropic: the Anthropic Messages API's parameters of a Request (Params, Tools;
//     the static instructions a cached block) and the Response of its answer (FromMessage).
//   - agent/eino: a view's tools as eino tools (Tools, EnhancedTools).
//
// A program on package host makes its agents from a session it opened, which fills in the
// registry, the scope and an agent's view options (host.Session.NewAgent):
//
//	sess, err := h.OpenSession(ctx, "s1")
//	if err != nil {
//		return err
//	}
//	defer sess.Close(ctx)
//	a, err := sess.NewAgent(model, agent.Options{}) // model: an agent.Model, such as openai.New(…)
//	if err != nil {
//		return err
//	}
//	for e, err := range a.Events(ctx, &agent.Input{Prompt: "Summarise README.md", History: history}) {
//		switch e.Kind {
//		case agent.EventDelta:
//			fmt.Print(e.Text)
//		case agent.EventEnd: // last: the Result; err is nil only for agent.StopDone
//			history = append(history, e.End.Messages...)
//			if err != nil {
//				return err
//			}
//		}
//	}
//
// agent.New(Options{Model, Registry, Scope: {SessionID, AgentName}}) makes one on any registry;
// Scope.AgentName defaults to DefaultAgentName ("main"). Where the registry's program checks
// sessions (ext.Registry.CheckSession; package host does while the config gives sessions
// servers of their own), New and Run at a session it has not opened fail with its error.
//
// # A run
//
//   - The Model is one call, Generate(Request) → Response: messages with roles, the tools with
//     their schemas unchanged, and Instructions split into Static (the agent's own, then the
//     view's static part: stable while nothing visible changes) and Dynamic (the skills the
//     turn selects). StreamingModel is used when Options.Observer is set, and ReasoningStreamer
//     before it, whose reasoning is sent as EventThought. A Model that retries a request calls
//     Retrying, which the Observer receives as an EventRetry.
//   - Each step compiles the view through a view.Cache, so a change is seen by the next step.
//   - Events is Run as a range-over-func iterator: the events, then one EventEnd holding the
//     Result with the run's error; breaking out of the loop cancels the run and waits for it.
//   - Run always returns a Result: Messages (ready to be the next History), Text, Stop, Steps.
//     StopMaxSteps wraps ErrMaxSteps (DefaultMaxSteps, 20); StopInterrupted returns ctx's
//     error; StopError a model failure (a *ModelError wrapping the Model's error). An interrupted step is dropped whole.
//   - A step's tool calls run concurrently (Options.MaxParallel, default 16), answered in order.
//     A tool's failure becomes an error result for the model, never the run's end; the agent
//     never retries a call.
//   - Options.Permit, when set, is asked before each call (an editor's confirmation); a call
//     it refuses is not made and the model gets the reason as an error result.
//   - Input.TurnCapabilities are registered at LevelTurn for the run and closed when it ends.
//
// Options.Tools chooses how the view's tools are offered (package exposure): all of them, or in
// search mode the always-on ones with search_tools and call_tool; what a search finds is offered
// from the next step on, for the agent's whole conversation; a view's tool not offered is
// refused by its name (call_tool reaches it).
//
// # Tools the agent adds
//
// read_resource {uri, offset} reads through the registry's routing (text in parts of
// ResourceTextLimit, default 32 KiB; binary up to ResourceBlobLimit, default 1 MiB);
// list_resources {offset} pages resources and templates (ListPageSize, default 50); delegate
// {agent, prompt} runs a subagent (Options.Subagents) at scope {session, name} with capabilities
// closed when it ends, one run per name and session (ErrSubagentBusy), one level deep. A view
// tool with one of these names is not offered (Result.Problems). Agent.Offered returns what a
// run's first step offers, these included, for a UI to count and list.
//
// Rationale: docs/design/agent.md.
package agent
