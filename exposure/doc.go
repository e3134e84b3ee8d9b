// Package exposure decides which tools of a view a session lists: all of them (ModeAll, the
// default), or in ModeSearch the always-on tools plus two of agentpool's own — a search tool
// that finds tools (and skills) of the view by a request in words and activates the tools it
// returns in the session, and a call tool that calls any tool of the view by its served name —
// so that a client's context holds a few tool definitions instead of hundreds. ModeAuto is
// search once the view's tools pass a threshold of count or listing bytes. The gateway (per MCP
// session) and the agent run loop (per conversation) use it alike; config holds its keys
// (server.tools, agents.<name>.tools).
//
// Decisions where the issue was silent:
//
//   - Only the view's tools are searched and called: a tool left out of the view (pin drift
//     blocked, hidden text blocked, allow/deny) is unreachable through both tools.
//   - Activation is per session and bounded (Config.MaxActive): past it the least recently
//     used tool (activated or called) is deactivated. A tool no longer in the view is not
//     listed. A fixed session (one shared by clients, as a stateless server is) activates
//     nothing; the call tool is its way in.
//   - In search mode a tool of the view that is neither always on nor activated is not
//     callable by its bare name (Lists): what a session lists is what it calls directly.
//   - In search mode search_tools and call_tool take the place of a view's tools of those
//     names (a prefix "" server's), which are then unreachable; other modes list them as usual.
//   - The search index is shared by every session of a Catalog and rebuilt per server:
//     a reloaded server re-indexes only its own tools. Each tool is indexed with its server's
//     instructions (View.ServerInstructions); a lazy server's are not cached with its manifest,
//     so its tools are indexed without them until a view compiled after it connected.
//
// Rationale: docs/design/exposure.md.
package exposure
