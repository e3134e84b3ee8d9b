// Package host is agentpool's composition root at run time (DESIGN.md "Layout"): from a
// config.Config it builds the registry, the connection pool and every capability the config
// declares, injects them into each other, opens and closes the capabilities of a session, and
// shuts everything down. It is the one package that knows every concrete kind (skill, command,
// mcpcap, connpool); nothing below it imports it, and package config, which only reads the
// file, builds nothing.
//
// RFC-0051 sections implemented here: "Client Injection (DI)" (a skill's own MCP servers are
// made by a factory the host hands each session's skill.Servers, so package skill never imports
// mcpcap), "Composition via Client Sharing" (those servers share the pool and are recorded as
// registry children of the session's skill servers), "Lifecycle Management" (Build, OpenSession, CloseSession, Close) and the
// resolved Q1 (pool-level capabilities registered at startup, session ones per session).
//
// # Kinds
//
// Build walks a small table of extension kinds — skills, commands, mcp_servers, agents — each an
// entry {key, build} whose build function turns that kind's section of the config (the kind's
// own struct, from its own package) into capabilities. Adding a kind touches its own package
// (the config struct with its YAML keys and Validate, and the capability) and one entry in
// that table — and the field in config.Config that names its key, since config validates
// every section at Parse, with positions, before anything is built. A test checks that the
// table and config.Config's sections name the same kinds.
//
// # Lifecycle
//
// Build follows Caddy's rule: load (the config is validated again, since one made in code has
// not been through config.Parse), provision (each kind builds its capabilities, doing no I/O
// beyond scanning skill and command folders: MCP servers connect when first listed), validate
// (names unique across kinds), register at pool scope. If any step fails, Build closes what
// the earlier steps started — unregistered capabilities, then the registry with everything
// registered and the pool last — and returns the error with no Host: nothing half-started
// survives.
//
// # Reload
//
// Host.Reload (reload.go) makes a running host follow a new version of its config. The file is
// validated whole (Config.Validate, and the names Build reserves) before anything changes; an
// invalid one changes nothing. Then only differences are applied, and nothing is rolled back:
// a declaration that fails is in ReloadResult.Failed, the rest stands, as at Build.
//   - A server is changed when its parsed declaration (decl.Server) differs. An
//     unchanged pool server keeps its *mcpcap.Cap, pooled process and pid; a changed one gets a
//     new Cap (a new process); a removed one is unregistered and closed. The old one's pooled
//     client is retired (connpool.Pool.Retire) between the old Cap's close and the new one's
//     registration: its process ends now, not after pool.idle_timeout, and the new Cap starts
//     a process of its own even when only what the pool does not fingerprint changed (prefix,
//     allow_tools, timeout). A client that another declaration with the same command still
//     leases (the pool shares it) stays until that one lets it go. The same holds for session-
//     scoped servers in each live session's partition and for agents' servers: an agent
//     removed or changed has the servers it drops or changes retired, while a server it
//     declares as before is rebuilt on the process it had.
//   - Session-scoped servers: new sessions get the new declaration; every live session (an
//     agent's too) gets its changed server replaced (restarted), a removed one removed and an
//     added one added, in its own partition.
//   - skills (dirs, watch, debounce, max_folders): a new pool skill manager replaces "skills"
//     (roots are fixed at creation), and every live session's "skill-servers" is rebuilt from
//     it (its skills' servers restart); so is it when extensions.allowed_commands changes,
//     since the factory holds the allowlist. commands (or skills.watch/debounce): a new
//     command-file source replaces "commands".
//   - agents: added ones are built, removed ones unregistered and closed with their live
//     sessions' agent servers, changed ones (and, when skills or extensions.allowed_commands
//     changed, those with skill folders of their own) rebuilt, their live sessions given new
//     agent servers.
//   - A trusted project's servers are merged again as Build merges them; the project is not
//     read again, so a reload never starts a server an untrusted project declares.
//   - server.*, pool.* and extensions.max_composition_depth are read once at start: a change
//     is listed in ReloadResult.AtRestart ("server.addr changed: takes effect at restart").
//   - Registry.Register and Unregister announce themselves (package ext), so live sessions'
//     views follow and their clients get list_changed.
//   - Sessions open and close under a read lock that Reload takes for writing: a session
//     opens with one whole config, never half of each.
//
// # Decisions taken where the RFC and DESIGN.md are silent
//
//   - Origins are explicit at registration: the skill manager ("skills") and command files
//     ("commands") are ext.OriginLocal — the command line's roots, the user's config's
//     skills.dirs and commands.dirs, ~/.agents/skills, ~/.claude/skills, ~/.claude/commands,
//     ~/.agents/commands; a trusted project's command files ("project-commands":
//     .claude/commands, .agents/commands under Options.ProjectDir, and the commands.dirs its
//     own agentpool.yaml names) are ext.OriginProject with the project's real path; MCP servers
//     say their own (remote, mcp://<name>).
//   - Skills are one manager, whatever their place: the view must offer the model one
//     catalogue and one load_skill, each skill once, and a manager per place would give each
//     place its own. Its roots, in precedence order: the command line's, the config's, the
//     user's conventional ones, a trusted project's (.agents/skills and .claude/skills under
//     Options.ProjectDir and the skills.dirs its agentpool.yaml names), and the bundled ones
//     (Options.BundledSkillDirs). So a user's skill outranks a project's of the same name (the
//     loser a diagnostic), as Claude Code orders personal over project skills; a skill's own
//     folder (SkillEntry.Origin) says where it lives.
//
// # Trust (DESIGN.md "Trust")
//
//   - A project's sources are always discovered (scanned once, by a skill manager and a
//     command source of its own, never registered), so that Host.Project can show them; they
//     are used — in any view, their servers startable — only when the project is trusted:
//     recorded in Options.Trust (package trust) with every server it now declares, or
//     Options.TrustProject for one host. Then its skill roots join the skill manager's and its
//     command files are registered. Untrusted, nothing they declare is started or connected,
//     and their skills and commands are in no view, load_skill and skill:// included, nor
//     watched.
//   - What is fingerprinted (InspectProject, shared by Build and `agentpool trust`): each
//     server of each project skill (frontmatter mcp-servers and mcp.json, as
//     "<skill>.<server>" declared in its file) and each mcp_servers entry of the project's
//     agentpool.yaml.
//   - A trusted project's skills' servers are built per session, like every skill's, by a
//     factory that first checks a declaration made under the project's roots against what
//     was trusted (its digest) — unless its skill was found under one of the user's own roots
//     (a folder both name: the user's, as when the project is untrusted): a hot reload that adds or changes a server in a trusted
//     project refuses it with ErrNotTrusted (a diagnostic of the session's "skill-servers")
//     and starts nothing, until the user trusts the project again.
//   - The project's agentpool.yaml (Options.ProjectConfig), once the project is trusted, adds
//     its mcp_servers to Build's config, the user's own — as Claude Code adds a project's
//     .mcp.json servers to the user's: the user keeps their servers, skill and command folders,
//     pool and extensions settings, and a project server named like one of the user's is not
//     used (Project.Shadowed; the CLI says so once). The project's skills.dirs and
//     commands.dirs are the project's roots, scanned by its own sources. The user's
//     extensions.allowed_commands holds for the project's servers too: trusting a project
//     never lifts it. Untrusted, the project's agentpool.yaml is only parsed and
//     fingerprinted. A config named explicitly is the user's own (the CLI passes no
//     ProjectConfig then).
//   - Trusting a project is trusting its code: its servers run as the user. So what a trusted
//     project could do besides — a server whose tool name takes precedence over one of the
//     user's (a session-scoped server, a custom prefix, a skill named like a user's server)
//     — gives it nothing it did not have; the rules above keep an untrusted project from
//     doing anything at all.
//   - Trust covers what a project declares — each server's command, args, env,
//     env_passthrough, cwd, URL and headers — not the content of the files those commands
//     run: a trusted project's own scripts are trusted as they change, as Claude Code and
//     Codex trust a folder.
//   - A user skill and a project skill of one name: the user's wins — the skill manager's
//     root order, the project's skill a diagnostic; for command files ext.Origin.Rank, as
//     package view applies it, the collision reported — so a cloned repository cannot shadow
//     your own skill or command. Claude Code orders personal over project skills the same way.
//   - The home directory is no project: a ProjectDir whose real path is HomeDir's has its
//     conventional folders scanned once, as the user's.
//   - A project's agentpool.yaml that does not parse or validate (Options.ProjectConfigErr)
//     is the project's problem while it is untrusted: the project is skipped, its
//     Project.ConfigErr saying why, and Build does not fail — a clone's broken file must not
//     stop every command run in it. Once the user trusts the project (a record, or
//     TrustProject), Build fails with the error: what the config would run is unknown.
//   - A trust store that cannot be read (trust.ErrCorrupt) trusts nothing: the project is
//     untrusted and Project.StoreErr says why, naming the file; Build does not fail, so a
//     broken store does not stop every command in every project.
//   - The name "project-commands" is reserved whether or not the project is trusted, so
//     trusting it never makes a configured name clash.
//   - Tool names follow the one rule, ext.ToolName(namespace, tool) = "<namespace>__<tool>":
//     a configured MCP server without a prefix key gets Prefix "<server>__", so the Cap itself
//     lists its tools namespaced and nobody above adds the namespace again; prefix: "" means
//     the server's own names (what a transparent gateway in front of one server needs); a
//     skill's own servers get Prefix "", because the skill manager namespaces their tools as
//     "<skill>__<tool>".
//   - A capability name may be used once: a server named "skills" or "commands", even a
//     session-scoped one, is refused by Build rather than shadowing the skill manager.
//   - Skills are the pool's, their servers the session's. Build registers one skill manager at
//     pool scope (catalogue, instructions, load_skill, commands: one discovery and one watcher
//     for every session) and gives it no factory, so it starts no server. OpenSession registers
//     at the session's scope a skill.Servers named "skill-servers" (the name is reserved) whose
//     factory builds the skills' servers in the session's pool partition: each session gets
//     its own processes and state, listed as "<skill>__<tool>", following the manager's
//     reloads. Outside a session (Scope{}) a skill's server tools are not listed; the CLI
//     always queries in a session of its own.
//   - A session ends at once: closing "skill-servers" (CloseSession, or Registry.CloseScope of
//     the session) closes the skills' servers and calls connpool.Pool.ClosePartition for the
//     session's partition, so its processes, configured session-scoped servers included, end
//     then rather than after pool.idle_timeout. CloseSession also waits for them: when it
//     returns, every process of the session has ended and been reaped.
//   - A skill's own MCP server is named "<skill>.<server>", is validated as a config entry
//     would be (keys "mcp-servers.<server>", prefixed by the SKILL.md or mcp.json position), and
//     extensions.allowed_commands applies to it. Its timeout, the one other key read, is a
//     duration with a unit as in the config file: a bare number is an error, not the default.
//     It is recorded as a registry child of its session's "skill-servers" when built
//     (Registry.AddChild) and forgotten (Registry.RemoveChild) when closed (a reload dropped or
//     replaced it, or the session ended), so hot reload does not accumulate edges.
//   - scope: session servers are not started by Build: OpenSession registers a private
//     instance per session (its own pool partition, so its own process and state). The
//     partition is new for every OpenSession, not the bare session id: a session id opened
//     again after its scope was closed gets fresh processes, never the idle ones the pool
//     still holds from the closed session.
//   - Agents (config agents:): each agent's capabilities are registered at ext.LevelAgent —
//     its pool-scoped servers and its skill manager in its static slot {AgentName}, shared by
//     every session of the agent; its session-scoped servers and its skills' servers by
//     OpenAgentSession in the slot {SessionID, AgentName}, in the session's pool partition, so
//     CloseSession ends them with the session's other processes. A pool session and another
//     agent never see them. An agent sees the pool's names and its own: its server may not
//     take a pool capability's name nor a reserved one ("agent-skills",
//     "agent-skill-servers", "skill-servers"); two agents may use one name.
//   - An agent's skill folders make a skill manager of its own ("agent-skills") whose roots
//     are its folders and then every root of the pool's manager, and which replaces the
//     pool's manager (and the session's "skill-servers") in the agent's view: a view offers
//     one catalogue and one load_skill, and two managers would offer two, the pool's unable
//     to load the agent's skills. The replacement is Agent.Include, a view.Options.Include
//     the CLI and the gateway pass (the registry has no notion of hiding a pool
//     registration from one agent). The cost is one more scan and watcher of the pool's
//     roots per agent with folders of its own, not per session.
//   - An agent's allow_tools/deny_tools filter its whole view by final tool name, the pool's
//     tools included (Agent.AllowsTool, passed as view.Options.Tools): a filter on the
//     agent's own capabilities alone could not hide a pool server's tool from it.
//   - A client's own servers (an ACP editor's session/new mcpServers, AddSessionServer) are
//     the user's declarations, since the editor runs as the user: no trust decision, but
//     validated as config entries and held to extensions.allowed_commands. They are
//     registered at the session's scope in its pool partition (its own processes, ended by
//     CloseSession) and may not take a name the session already sees, so an editor cannot
//     shadow a configured server or a reserved name.
//   - Plugins (the plugins section, package plugin): InspectPlugins reads the catalogue and
//     parses each plugin's MCP declarations as config parses an imported .mcp.json (the
//     plugin's root variables first), each server validated alone, so a bad one is a problem
//     of its plugin and the rest stands. The used plugins (enabled; a project's only while the
//     project is trusted) are merged like a trusted project's servers: their servers are
//     added to the config as "<plugin>.<server>" (a name the user's config or a trusted
//     project has already is not used: PluginInfo.Shadowed), so Build and Reload treat them
//     as any server; their skill folders are the skill manager's namespaced roots
//     (skill.NamespacedRoot: "<plugin>:<skill>", never a bare name, so a plugin neither takes
//     nor loses a name to a user's skill, and two plugins cannot collide); their command
//     folders are one command source each, "plugin:<name>", commands "<plugin>:<command>".
//     Plugins the user's config names (or imports from Claude Code and Codex) are the user's
//     (ext.OriginLocal); those a project's agentpool.yaml names are the project's (its
//     import_installed ignored: the user's installed plugins are the user's to import), their
//     servers and their skills' own servers fingerprinted with its others (Project.Decls), so
//     a changed .mcp.json or skill server asks again, and one added while serving is refused
//     (skillServerFactory). A reload reads the user's plugins again (the state file of `agentpool plugins
//     enable|disable` included), never a project's, as for its config;
//     the user's enable state applies to a project's plugins too (Plugins.AddProject).
//   - Command files follow the skills section's watch and debounce: one host follows both, and
//     no separate switch has been asked for.
package host
