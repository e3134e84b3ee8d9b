// Package host is agentpool's composition root at run time (DESIGN.md "Layout"): from a
// config.Config it builds the registry, the connection pool and every capability the config
// declares, injects them into each other, opens and closes the capabilities of a session, and
// shuts everything down. It is the one package that knows every concrete kind (skill, command,
// mcpcap, connpool, plugin, trust); nothing below it imports it.
//
//	cfg, err := config.Load("agentpool.yaml")
//	if err != nil {
//		return err
//	}
//	h, err := host.Build(ctx, cfg, host.Options{DefaultRoots: true, ProjectDir: wd, HomeDir: home})
//	if err != nil {
//		return err // nothing was left running
//	}
//	defer h.Close(ctx)
//	if err := h.OpenSession(ctx, "s1"); err != nil {
//		return err
//	}
//	defer h.CloseSession(ctx, "s1")
//	v, err := view.Compile(ctx, h.Registry, ext.Scope{SessionID: "s1"}, nil)
//
// # Kinds
//
// Build knows the extension kinds as a table: skills, commands, plugins, mcp_servers and agents,
// each a section of config.Config (the kind's own struct, from its own package) that one entry
// turns into capabilities. The table and config.Config's sections name the same kinds.
//
// # Lifecycle
//
//   - Build validates the config, builds every kind's capabilities (MCP servers connect when
//     first listed), checks that names are unique, and registers them at pool scope. If a step
//     fails it closes what it started and returns no Host.
//   - OpenSession (OpenAgentSession for an agent) registers the session's own capabilities —
//     its scope: session servers and "skill-servers", the skills' MCP servers — in a pool
//     partition new for that call. When CloseSession returns, every process of the session has
//     ended and been reaped.
//   - Reload applies a new config: an invalid one changes nothing; otherwise only what differs
//     is closed and rebuilt, in the pool and in every live session (an unchanged server keeps
//     its process). Failures are in ReloadResult.Failed and the rest stands; server.*, pool.*
//     and extensions.max_composition_depth wait for a restart (ReloadResult.AtRestart).
//   - Close closes every capability, then the pool.
//
// # Decisions taken where the RFC is silent
//
// The host registers "skills" (the one skill manager), "commands", "project-commands",
// "plugin:<name>" (a plugin's commands) and, per session, "skill-servers"; per agent
// "agent-skills" and "agent-skill-servers". A configured server may not be named "skills",
// "commands", "project-commands" or "skill-servers" (an agent's server not "agent-skills" or
// "agent-skill-servers" either), and a name is used once in a scope.
//
// Tools are "<server>__<tool>" (ext.ToolName) unless a server sets prefix; a skill's server is
// the capability "<skill>.<server>" and lists "<skill>__<tool>"; a plugin's server is
// "<plugin>.<server>". Skill roots in precedence order: the command line's, the config's, the
// user's, a trusted project's, plugins' (namespaced "<plugin>:<skill>"), the bundled ones; a
// user's skill or command outranks a project's of the same name.
//
// # Trust
//
// A project (Options.ProjectDir; never the home directory) is discovered always and used only
// when trusted: recorded in Options.Trust with every server it declares now, or
// Options.TrustProject. Untrusted, nothing it declares starts or connects, and its skills and
// commands are in no view. Trusted, its agentpool.yaml adds its mcp_servers (a name the user
// already uses stays the user's), and extensions.allowed_commands still applies; a server it
// adds or changes later is refused with ErrNotTrusted until trusted again. A project config that
// does not parse skips an untrusted project and fails Build for a trusted one; an unreadable
// trust store trusts nothing.
//
// Agents get their own level, skill manager and tool filter (Agent.Include, Agent.AllowsTool);
// AddSessionServer adds a client's server to its session. Rationale: docs/design/host.md.
package host
