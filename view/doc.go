// Package view is the view of a scope: RFC-0051's AgentFactory.compile() (sequence diagram 5,
// "Hot Reload / hot-swap listener"; DESIGN.md "Layout": view). Compile asks every capability
// an ext.Registry makes visible at a Scope for what it offers and assembles one immutable View:
// the tools under their final names with where each comes from and how to call it, the merged
// commands, the skills of every source, resources and templates, and the system prompt in a
// static and a dynamic part. A Cache keeps one view per scope, recompiled only when something
// that scope sees has changed. The CLI, the gateway and agents all go through it, so "what
// does this caller see?" has one answer.
//
// It imports ext only: every capability is reached through the ext interfaces.
//
// Decisions taken where the RFC is silent:
//   - Naming: capabilities list their tools under final names built by the one rule
//     ext.ToolName ("<namespace>__<tool>": an upstream server's name, or its configured
//     prefix; a skill's name for a skill's own servers; none for agentpool's own tools). The
//     view checks every name against every other: when two capabilities list the same name,
//     the one that precedes keeps it — the user's own origin before a project's before a
//     remote one, then the narrowest scope (turn, agent, session, pool), then Visible order —
//     and the other is renamed "<capability>__<name>"; if that is taken too, it is left out.
//     Either way the collision is in View.Collisions: nothing is shadowed silently.
//   - Options.Tools (an agent's allow_tools/deny_tools) filters final names after collisions
//     are resolved, so a filtered view names each tool as the unfiltered one does; a Cache
//     takes fixed compile options (CacheOptions.Compile), one cache per agent that filters.
//   - A capability registered in several visible slots (ext allows the same value at pool and
//     in a session) is one source: asked once, and placed as its registration that precedes.
//   - Prompts are the commands: every command of the view (a command file, a skill, an
//     upstream prompt under "<server>:<prompt>") is what an MCP client sees as a prompt, and
//     GetCommand returns its role-tagged messages. There is no separate prompt list.
//   - Commands: the winner of a contested name is chosen by origin, then by entry source
//     (command files, skills, MCP prompts), then Visible order, then order within a source;
//     each loser is listed under its qualified name ("file:review", "skill:pdf",
//     "<server>:<prompt>"), which also reaches every command — unless a command that
//     precedes holds it already (the user's and a project's command files both qualify
//     /review as "file:review"): then the loser is "<capability>:<qualified name>", or left
//     out if that is taken too. A listed name always reaches the capability it names.
//   - Skills: one source per skill name, chosen like tools (a local skill always beats a
//     remote one); the loser is a "skill" collision. Reads go through ext.Registry.ResolveURI,
//     which applies the same precedence, per skill: every file of a skill comes from the source that owns it.
//   - Failures: a capability that reports itself degraded or closed (ext.HealthReporter)
//     contributes nothing; a listing that fails leaves out that part (and, for a remote
//     capability whose tools cannot be listed, the rest: it is unreachable). Each is a
//     Problem; a compile never fails because a capability did.
//   - Instructions: Static joins every capability's static part in Visible order, so it is
//     byte-identical while nothing visible changes (prompt caches hit); text from a remote
//     origin is wrapped in <instructions from="mcp://<server>">. Dynamic holds what is always
//     active and, with Options.Prompt (or View.TurnInstructions), the skills selected for
//     the turn.
//   - Caching: a Cache compares the registry's ext.Stamp for the scope — the visible
//     registrations and a count of each one's change events — with the stamp its view was
//     compiled at. An event therefore invalidates exactly the scopes that see its capability,
//     and a registration exactly the scopes that see its slot, with no goroutine or
//     subscription per scope. Capabilities are asked concurrently in an uncached compile.
//     A view with Problems is compiled again after CacheOptions.RetryProblems (default 5 s)
//     even without an event: a degraded server recovers only when asked, and a cached view
//     that left it out would otherwise never ask. Measured (BenchmarkCompile, 200 tools from
//     10 servers and 100 skills): a cached Get costs about 160 ns with no allocation, the
//     uncached compile about 1–1.5 ms.
package view
