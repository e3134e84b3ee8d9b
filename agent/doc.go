// Package agent runs agents on the registry (RFC-0051 "AgentFactory", sequence diagrams 5–9;
// DESIGN.md "Layout": agent): a model-agnostic Model, a run loop whose every step sees the
// view of its scope as it is now, resource tools for the model, and delegation to subagents
// whose agent-scoped capabilities live as long as they run. It imports view and ext only:
// capabilities are reached through the view, and whatever builds them (the host, a test)
// hands them in. Adapters to LLM SDKs (sub-packages, not built yet) only translate Request
// and Response.
//
// Decisions taken where the RFC and the issue are silent:
//
//   - The Model is one call, Generate(Request) → Response: messages with roles (user,
//     assistant with tool calls, tool results with MCP content), the tools with their JSON
//     schemas passed through unchanged and their origin, and Instructions split into Static
//     and Dynamic so an adapter can mark the static part cacheable. Streaming is the optional
//     StreamingModel, used when an Observer is set.
//   - Each step compiles the view through a view.Cache (a stamp comparison when nothing
//     changed), so an event between two steps — an upstream list_changed, a skill edited —
//     is seen by the next step, never by one already sent. The tools offered and the
//     instructions are rebuilt only when the cache returns another view.
//   - Static instructions are the agent's own Instructions, then the view's static part
//     (skill catalogue, servers' instructions; remote ones labelled <instructions
//     from="mcp://<server>"> by package view), byte-identical while nothing visible changes.
//     Dynamic is View.TurnInstructions for the turn's prompt: the skills it selects, always
//     after the static part.
//   - The turn scope: a run with Input.TurnCapabilities registers them at LevelTurn under
//     {session, agent, TurnID} (TurnID "turn-<n>" by default) and compiles at that scope;
//     the turn's end (whatever the reason) closes it with Registry.CloseScope, under a
//     context that is not cancelled with the run, and drops its cached view. A run without
//     turn capabilities compiles at the agent scope, whose cached view then serves every
//     turn: no slot to close, and the first step of a turn is a cache hit. The run owns its
//     turn capabilities, as a spawn owns what SubagentSpec.Capabilities built: one that
//     cannot be registered (a duplicate name) ends the run with StopError before any step,
//     and is closed with the rest.
//   - Run always returns a Result: Messages (this turn's, ready to be the next History),
//     Text (the last answer), Stop and Steps. The error is nil only for StopDone.
//     StopMaxSteps wraps ErrMaxSteps (default limit DefaultMaxSteps = 20 model steps);
//     StopInterrupted returns ctx's error; StopError a model failure (adapters retry what
//     is worth retrying). An interrupted step is dropped whole: its assistant message and
//     whatever results had arrived are not in Messages, so no partial tool result reaches
//     anybody and every tool call in Messages has its answer.
//   - Events: an Observer gets streamed text, and each tool call's start and end with the
//     tool's origin (what an editor shows), from a subagent too, named by Event.Agent.
//   - Tool calls of a step run concurrently (at most MaxParallel, default 16) and are
//     answered in the order asked. A tool's failure never ends the run (the RFC's
//     ModelRetry): a result with isError passes as it is; a call that could not be made (an
//     unknown tool, arguments that are not a JSON object, a lost connection not retried, a
//     degraded server) becomes a tool message with IsError and a text naming the tool and
//     the error. Retrying a call after a crash is mcpcap's (read-only and idempotent tools
//     only), never the agent's. A call that could not be made also makes the next step
//     compile afresh (Cache.Forget), so a server that stays dead is asked, found degraded,
//     and left out of the next toolset without waiting for an event: mcpcap emits
//     tools_changed when it degrades, which happens only when something asks it, and a
//     cached view asks nothing.
//   - Resource tools: read_resource {uri, offset} reads through the registry's routing at
//     the step's scope (view.ReadResource: skill://, mcp://<server>/…, servers' own
//     schemes). Text over ResourceTextLimit (default 32 KiB) is cut at a character boundary
//     with a trailer "[<uri>: bytes A-B of N shown; call read_resource with offset=B for the
//     rest]"; binary is image or audio content, or an embedded resource, with its MIME
//     type, and over ResourceBlobLimit (default 1 MiB) a note of its size instead.
//     list_resources {offset} pages the view's resources then templates, ListPageSize
//     (default 50) at a time, ending with the offset of the next page. These tools, and
//     delegate, are the agent's, not capabilities: never registered, in no view or registry
//     query. A view tool with one of their names is not offered, and Result.Problems says so.
//   - Subagents: a subagent's scope is {the parent's session, SubagentSpec.Name}, so it sees
//     pool, session and static-agent capabilities for its name, plus the agent-scoped ones
//     its spec builds for this spawn, registered session-qualified (visible in that session
//     only) and closed with CloseScope of that scope when it ends. Connections leased from
//     the pool are given back, not closed, so the parent and other subagents keep using
//     the same processes. A name runs once at a time per session, whichever agent spawns it
//     (ErrSubagentBusy), since two runs would share, and close, one agent scope. The model spawns through the delegate tool {agent,
//     prompt}; several delegate calls of one step run concurrently; a subagent has no
//     delegate tool (one level); its failure is the parent's tool error, not the parent's
//     end. Cancelling the parent's context cancels the subagent's, and through it the
//     in-flight MCP calls (go-sdk sends notifications/cancelled); the connection stays.
package agent
