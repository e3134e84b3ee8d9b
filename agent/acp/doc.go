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
//     http, sse), then a first compile. A server refused or failing to start is listed in
//     _meta.agentpool.problems and the session goes on without it, unless every declared
//     server was refused. The cwd given is not used. What AddServer does with a server is the
//     host's: agentpool's host pins its definitions (warn by default) and checks its text for
//     hidden text, as for the user's own servers.
//   - Commands: the view's commands are sent as available_commands_update after session/new
//     and whenever the view's list changes. A prompt "/name args" naming one runs it; a "/"
//     naming none is the user's text.
//   - session/prompt takes text, resource links and embedded text resources; images, audio and
//     binary resources are refused.
//   - Updates: model text as agent_message_chunk; each tool call as tool_call (in_progress)
//     then tool_call_update (completed or failed), with {origin, agent, tool} in
//     _meta.agentpool.
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
