// Package acp serves agents to editors over the Agent Client Protocol (ACP, the protocol Zed and
// other editors run agents with), on github.com/coder/acp-go-sdk (protocol version 1). Like
// package gateway it sees capabilities through view and ext only; what it needs of the host
// (opening and closing a session, adding the servers an editor declares) is handed to it in
// Options.
//
//	s, err := acp.New(acp.Options{
//		Model: model, Registry: reg, AgentName: "helper",
//		OpenSession: h.OpenSessionFunc(""), CloseSession: h.CloseSession,
//	})
//	if err != nil {
//		return err
//	}
//	return s.Serve(ctx, os.Stdin, os.Stdout) // until the editor closes stdin
//
// The protocol, as served:
//
//   - Each ACP session is a Session scope {"acp-<random>", Options.AgentName} with one
//     agent.Agent and its own history.
//   - session/new: OpenSession, then each declared server through Options.AddServer (stdio,
//     http, sse), then a first compile. A server refused or failing to start is logged (at
//     error level), listed in _meta.agentpool.problems and told to the user as an
//     agent_message_chunk once the session/new response is out, and the session goes on
//     without it, unless every declared server was refused. The cwd given is not used. What AddServer does with a server is the
//     host's: agentpool's host pins its definitions (warn by default) and checks its text for
//     hidden text, as for the user's own servers.
//   - Commands: the view's commands are sent as available_commands_update after session/new
//     and whenever the view's list changes. A prompt "/name args" naming one runs it; a "/"
//     naming none is the user's text.
//   - session/prompt takes text, resource links and embedded text resources; images, audio and
//     binary resources are refused.
//   - Updates: model text as agent_message_chunk; each tool call as tool_call (in_progress)
//     then tool_call_update (completed or failed), with {origin, agent, tool} in
//     _meta.agentpool (agent left out when internal, as agentpool acp's "_acp" is). A call's toolCallId is the session's own, "call-<n>" counted per
//     session, never the model's: the model's ids repeat across a cancelled step and
//     between a subagent's runs, and an editor keys its cards by toolCallId.
//   - A card's title is the tool's title, else its name made readable ("run cmd (ed)" for
//     ed__run_cmd); its kind is read for a read-only tool (search or fetch when its name
//     says so), else what the name's words say (delete, execute, move, edit, fetch, search,
//     read), else other; its locations are the absolute paths and file:// URIs of the
//     arguments' keys naming a path, file or uri.
//   - Each turn offers the model update_plan {plan: [{content, priority, status}]}, a turn
//     capability of this package: a valid call is sent as a plan update (the whole plan), not
//     as a card. A model's streamed reasoning (agent.ReasoningStreamer) is sent as
//     agent_thought_chunk.
//   - Permission: before a call of a tool that is not annotated read-only (or is annotated
//     destructive) the editor gets session/request_permission naming the call's card, with
//     allow once, allow always (remembered for the session) and reject. Options.Permission
//     overrides that per tool: allow runs it unasked, deny never runs it, ask always asks.
//     The agent's own tools are not asked about. A call rejected or denied does not run: the
//     model gets an error result saying so, and the card ends failed.
//   - Stop reasons: end_turn, max_turn_requests (Options.MaxSteps), cancelled. A model failure
//     is an error response.
//   - session/cancel cancels the turn and its in-flight MCP calls upstream; the calls cut short
//     are reported failed first. A prompt sent while another runs waits for it.
//   - session/close and the end of the connection end sessions: turn cancelled, CloseSession,
//     the session's scope closed. session/load, list, resume, modes and config options are not
//     offered; authenticate succeeds with no method advertised.
//
// Rationale: docs/design/agent.md.
package acp
