// Package agent runs agents on the registry (RFC-0051 "AgentFactory"): a model-agnostic Model, a
// run loop whose every step sees the view of its scope as it is now, resource tools for the
// model, and delegation to subagents whose agent-scoped capabilities live as long as they run.
// It imports view and ext only; adapters to LLM SDKs are sub-packages (agent/openai,
// agent/anthropic, agent/eino) that translate Request and Response.
//
//	a, err := agent.New(agent.Options{
//		Model:    model, // an agent.Model, such as openai.New(…)
//		Registry: reg,
//		Scope:    ext.Scope{SessionID: "s1", AgentName: "helper"},
//	})
//	if err != nil {
//		return err
//	}
//	res, err := a.Run(ctx, &agent.Input{Prompt: "Summarise README.md", History: history})
//	history = append(history, res.Messages...)
//	fmt.Println(res.Text, res.Stop) // err is nil only for agent.StopDone
//
// # A run
//
//   - The Model is one call, Generate(Request) → Response: messages with roles, the tools with
//     their JSON schemas passed through unchanged and their origin, and Instructions split into
//     Static (the agent's own Instructions, then the view's static part: byte-identical while
//     nothing visible changes) and Dynamic (the skills the turn's prompt selects). Streaming is
//     the optional StreamingModel, used when Options.Observer is set.
//   - Each step compiles the view through a view.Cache, so a change between two steps is seen
//     by the next step.
//   - Run always returns a Result: Messages (this turn's, ready to be the next History), Text
//     (the last answer), Stop and Steps. StopMaxSteps wraps ErrMaxSteps (DefaultMaxSteps, 20
//     model steps); StopInterrupted returns ctx's error; StopError a model failure. An
//     interrupted step is dropped whole: every tool call in Messages has its answer.
//   - Tool calls of a step run concurrently (Options.MaxParallel, default 16) and are answered
//     in the order asked. A tool's failure never ends the run: it becomes a tool message with
//     IsError naming the tool and the error, and the next step compiles afresh. The agent
//     never retries a call.
//   - Input.TurnCapabilities are registered at LevelTurn for the run (TurnID "turn-<n>" by
//     default) and closed when it ends, whatever the reason; one that cannot be registered ends
//     the run with StopError before any step. Without them a run compiles at the agent scope.
//   - Options.Observer gets streamed text and each tool call's start and end, from a subagent
//     too (Event.Agent). It must not block.
//
// # Tools the agent adds
//
//   - read_resource {uri, offset} reads through the registry's routing; text over
//     ResourceTextLimit (default 32 KiB) is returned in parts with a trailer giving the next
//     offset; binary is image or audio content or an embedded resource, and over
//     ResourceBlobLimit (default 1 MiB) a note of its size.
//   - list_resources {offset} pages the view's resources then templates, ListPageSize (default
//     50) at a time.
//   - delegate {agent, prompt}, when Options.Subagents is set, runs a subagent in the parent's
//     session at scope {session, SubagentSpec.Name}, with the capabilities its spec builds
//     registered for the spawn and closed when it ends (pooled connections are given back, not
//     closed). A name runs once at a time per session (ErrSubagentBusy); a subagent has no
//     delegate tool; its failure is the parent's tool error. Cancelling the parent cancels it.
//
// These tools are the agent's, in no view or registry query; a view tool with one of their
// names is not offered, and Result.Problems says so. Rationale: docs/design/agent.md.
package agent
