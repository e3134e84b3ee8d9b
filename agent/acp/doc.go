// Package acp serves agents to editors over the Agent Client Protocol (ACP, the protocol Zed
// and other editors run agents with), on github.com/coder/acp-go-sdk (protocol version 1).
// DESIGN.md places the ACP server under agent/; like package gateway it sees capabilities
// through view and ext only, and what it needs of the host — opening and closing a session,
// adding the MCP servers an editor declares — is handed to it as functions (Options).
//
// Decisions taken where the protocol and the issue are silent:
//
//   - Each ACP session is a Session scope {"acp-<random>", Options.AgentName} with one
//     agent.Agent and its own history: a turn sees the earlier turns' messages, whatever
//     they ended with (a cancelled turn keeps the prompt and the steps that completed).
//   - session/new: OpenSession first (the host's session-scoped servers), then each server
//     of mcpServers through AddServer (stdio, and http and sse, which initialize advertises
//     when AddServer is set; ACP-transport servers are refused), then a first compile of the
//     view, which starts them. A server refused, or that fails to start, is a problem, not a
//     failure: it is logged, listed in the response's _meta.agentpool.problems, and the
//     session goes on without it — except when every server the client declared was
//     refused: then session/new fails with all the reasons (the servers were the point).
//   - session/new's cwd is logged, not used: the host (its project, its trust) is built once
//     for the process, from agentpool's own working directory, where editors start it.
//   - Commands: available_commands_update is sent once the session/new response is out
//     (a client may drop an update for a session it has not been told of yet; the
//     connection's writer sees the response go), then again whenever a change event leaves
//     the view with another list — the registry's change stream, as the gateway follows it
//     for list_changed. A command's name is the view's (what the user types after "/"), its
//     input hint the argument hint or, for an MCP prompt, its arguments' names, its origin
//     in _meta.agentpool.
//   - session/prompt: text blocks are the prompt; a resource link becomes a Markdown link, an
//     embedded text resource <resource uri="…">; images, audio and binary resources are
//     refused (promptCapabilities says so). A prompt "/name args" naming one of the view's
//     commands runs that command (cmdline.ParseLine, Agent.CommandInput: the model gets the
//     expansion), and one whose arguments do not parse (an unclosed quote) is refused with
//     the reason, as chat refuses the line; a "/" that names none ("/usr/bin is slow") is the
//     user's text.
//   - Updates: streamed model text is agent_message_chunk (a model that does not stream
//     gets its final text sent at the end); a tool call's start is tool_call with status
//     in_progress (the agent reports a call when it starts, not before), title the tool's
//     final name, kind read for read-only tools and the agent's resource tools and other
//     otherwise, rawInput its arguments; its end is tool_call_update completed, or failed
//     when the result is an error, with the result's text and images as content and its
//     structured content as rawOutput. ACP has no field for where a tool comes from: a tool
//     call's _meta.agentpool holds {origin, agent, tool} (origin as ext.Origin: kind and
//     location, "mcp://<server>" for a server's tool).
//   - Stop reasons: end_turn when the model answered, max_turn_requests at the step limit
//     (Options.MaxSteps), cancelled when the turn's context ended (session/cancel, or the
//     client gone). A model failure is an error response: ACP has no stop reason for it,
//     and the agent has no notion of a refusal, so refusal is never sent.
//   - session/cancel cancels the turn's context: the model request is abandoned and the
//     in-flight MCP calls are cancelled upstream (go-sdk sends notifications/cancelled); the
//     calls cut short are reported failed ("cancelled") before the prompt answers cancelled,
//     since ACP wants every update of a turn sent before its response. A prompt sent while
//     another runs waits for it (the SDK cancels the earlier one); session/cancel, and the
//     session's end, cancel it as well while it waits, and then it never runs.
//   - session/close is supported (sessionCapabilities.close); the end of the connection ends
//     every session the same way: turn cancelled and waited for, CloseSession (the host
//     ends the session's processes), the registry's scope of the session closed, its views
//     forgotten. session/load, list, resume, modes and config options are not offered
//     (method not found); authenticate succeeds with no method advertised. The client's fs
//     and terminal capabilities are not used: the agent's tools are its MCP servers'.
package acp
