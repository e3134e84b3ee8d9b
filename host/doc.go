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
// # Lifecycle
//
//   - Build validates the config, builds every kind's capabilities (no I/O beyond scanning
//     skill and command folders: MCP servers connect when first listed), checks that names are
//     unique, and registers them at pool scope. If any step fails it closes what it started
//     and returns no Host.
//   - OpenSession registers the session's own capabilities: its scope: session servers and
//     "skill-servers", which builds the skills' MCP servers, each in a pool partition new for
//     that OpenSession. OpenAgentSession does the same for an agent's session. CloseSession
//     ends them; when it returns every process of the session has ended and been reaped.
//   - Reload applies a new config: an invalid one changes nothing; otherwise only what differs
//     is unregistered, closed, retired from the pool and rebuilt (an unchanged server keeps its
//     process), in the pool and in every live session. A declaration that fails is listed in
//     ReloadResult.Failed and the rest stands; server.*, pool.* and
//     extensions.max_composition_depth take effect at restart (ReloadResult.AtRestart).
//     Sessions open under one whole config, never half of each.
//   - Close closes every capability, then the pool.
//
// # Names and precedence
//
//   - Registered names: "skills" (the one skill manager: one catalogue and one load_skill for
//     every session), "commands" (the user's command files), "project-commands",
//     "plugin:<name>" (a plugin's command files), one per configured MCP server, and per
//     session "skill-servers"; per agent "agent-skills" and "agent-skill-servers". These are
//     reserved: no server may take them. A name is used once in a scope: an agent's server or
//     a client's may not take a name its scope already sees.
//   - Tools are named by ext.ToolName: a configured server without a prefix key lists its
//     tools as "<server>__<tool>"; prefix: "" keeps the server's own names; a skill's own
//     server "<skill>__<tool>". A skill's server is the capability "<skill>.<server>", a
//     plugin's "<plugin>.<server>".
//   - Skill roots, in precedence order: the command line's, the config's, the user's
//     conventional ones, a trusted project's, plugins' (namespaced "<plugin>:<skill>"), then
//     Options.BundledSkillDirs. A user's skill or command outranks a project's of the same name.
//   - Origins are explicit: the user's sources are ext.OriginLocal, a trusted project's
//     ext.OriginProject, MCP servers say their own (remote, mcp://<name>).
//
// # Trust
//
// A project (Options.ProjectDir) is always discovered, so Host.Project can show it, but used
// only when trusted — recorded in Options.Trust with every server it now declares, or
// Options.TrustProject. Untrusted, nothing it declares is started or connected and its skills
// and commands are in no view. Trusted, its agentpool.yaml adds its mcp_servers (a name the
// user already uses stays the user's: Project.Shadowed), its skill and command folders join,
// and extensions.allowed_commands still applies. A server a trusted project adds or changes
// later is refused with ErrNotTrusted until the user trusts it again. A project config that
// does not parse skips an untrusted project and fails Build for a trusted one; an unreadable
// trust store trusts nothing. The home directory is no project.
//
// # Agents, plugins and client servers
//
// An agent's capabilities are registered at ext.LevelAgent: pool-scoped servers and its skill
// manager in the static slot {AgentName}, session-scoped ones by OpenAgentSession. An agent with
// skill folders gets a skill manager of its own whose roots are its folders then the pool's,
// replacing the pool's in its view (Agent.Include); its allow_tools/deny_tools filter its whole
// view (Agent.AllowsTool). Used plugins (package plugin; a project's only while it is trusted)
// add servers, namespaced skill roots and command sources. AddSessionServer registers a server
// a client declares (an ACP editor's), validated as a config entry, in that session only.
//
// Rationale: docs/design/host.md.
package host
