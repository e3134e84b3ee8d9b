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
//	h, err := host.Build(ctx, cfg, host.Options{ProjectDir: wd, HomeDir: home})
//	if err != nil {
//		return err // nothing was left running
//	}
//	defer h.Close(ctx)
//	sess, err := h.OpenSession(ctx, "s1")
//	if err != nil {
//		return err
//	}
//	defer sess.Close(ctx)
//	a, err := sess.NewAgent(model, agent.Options{}) // agent "main" of session s1
//	v, err := view.Compile(ctx, h.Registry, sess.Scope(), nil)
//
// # Kinds
//
// The host knows the extension kinds as a table: skills, commands, plugins, mcp_servers and
// agents, each a section of config.Config (the kind's own struct, from its own package) whose
// one entry declares what the section asks for. The table and config.Config's sections name
// the same kinds; a kind added to the table is built, reloaded and removed with no other code.
//
// # Plan and reconciler
//
// A config, with a trusted project's parts and the used plugins, becomes a Plan: one Entry per
// registration, keyed by Key{Level, Slot, Name}, with the fingerprint of its declaration.
// Build, Reload and OpenSession all apply a plan by one reconciler: it makes every new or
// changed capability first, then publishes the new State, then swaps registrations and closes
// (and retires the pooled clients of) what the new plan no longer has. An entry whose
// capability cannot be made keeps the old one and is reported; an unchanged entry keeps its
// capability and its process. A changed MCP server fails no call: the new one takes the calls
// from the swap on, and the old one ends once its calls in flight are done (bounded by its
// call timeout and by Close). Names are checked over the plan, so Build and Reload refuse the
// same ones.
//
// The host's state (the config in force, the skill manager, the command source, the project,
// the pool's servers) is one immutable *State, read with Current(); a reload publishes a new
// one and never changes a published one, so a reader needs no lock; State.Replaced tells a
// reader that follows the host when a newer one is published.
//
// # Lifecycle
//
//   - Build validates the config and reconciles its plan against nothing (MCP servers connect
//     when first listed). If a step fails it closes what it started and returns no Host.
//   - OpenSession (OpenAgentSession for an agent) reconciles the session's own entries — its
//     scope: session servers and "skill-servers", the skills' MCP servers — in a pool partition
//     new for that call, and returns the *Session. Session.NewAgent makes an agent in it (the
//     registry, scope, view options and tool exposure filled in; the name "main" unless the
//     session is an agent's). When Session.Close (CloseSession) returns, every process of the
//     session has ended and been reaped. OpenSessionFunc gives the gateway and the ACP server
//     the form of hook they call per client session.
//   - The host installs the registry's session check (ext.Registry.SetSessionCheck): while
//     the config gives sessions servers of their own, agent.New and agent.Run at a session the
//     host has not opened fail with ErrSessionNotOpen naming one of them, rather than run
//     without them.
//   - Reload applies a new config: an invalid one changes nothing; otherwise only what differs
//     is closed and rebuilt, in the pool and in every live session. Failures are in
//     ReloadResult.Failed and the rest stands; server.*, pool.* and
//     extensions.max_composition_depth wait for a restart (ReloadResult.AtRestart).
//   - Follow watches the config file, its imports and the plugin files and reloads on change
//     (and on Follower.Reload, for a caller's SIGHUP), until Follower.Close or ctx ends.
//   - Close closes every capability, then the pool.
//
// # Decisions taken where the RFC is silent
//
// The host registers "skills" (the one skill manager), "commands", "project-commands",
// "plugin:<name>" (a plugin's commands) and, per session, "skill-servers"; per agent
// "agent-definition", "agent-skills" and "agent-skill-servers". A configured server may not
// be named "skills", "commands", "project-commands" or "skill-servers" (an agent's server not
// "agent-definition", "agent-skills" or "agent-skill-servers" either), and a name is used once
// in a scope.
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
// Options.TrustProject. Untrusted, nothing it declares starts or connects, its skills and
// commands are in no view, and the folders its agentpool.yaml names outside the project are
// not read (Project.Unscanned; ProjectOptions.ScanAll reads them for agentpool trust), nor is
// a marketplace of its whose file or plugin folder root (plugin.Marketplace.Root) is outside, nor are
// its conventional folders (.claude/skills, …) that are symlinks out of it, nor any file or
// folder inside them that links out of it (confined scans: a warning names each link), nor the
// files its import key names (LoadProjectConfig reads it with config.LoadOwn;
// Project.Unread lists them). Trusted, its agentpool.yaml adds its mcp_servers (a name the user
// already uses stays the user's), and extensions.allowed_commands still applies; a server it
// adds or changes later is refused with ErrNotTrusted until trusted again. A project config that
// does not parse skips an untrusted project and fails Build for a trusted one; an unreadable
// trust store trusts nothing.
//
// # Pins
//
// With Options.Pins (NewPins: the user's pin store, PinsDir), every server of the config, of
// a trusted project and of a plugin gets a pin guard (package pin) keyed by where it is
// declared, its name and what it runs; its policy is its own pins key, else the config's,
// else block for a project's server and warn for the others (an agent's servers are the
// user's, whatever a project's or plugin's server of the same name). A skill's own server,
// "<skill>.<server>", is pinned under the config's pins key, else block for a trusted project's
// skill and warn for the others, keyed by the file that declares it; a pins key in the skill's declaration is not read. An ACP client's servers
// (AddSessionServer) are pinned under the config's pins key, else warn, keyed by name and
// command, not by session. Unless Options.NoWatch, the pin folder is followed, and a server whose
// pins change (agentpool pins approve) lists again.
//
// # Manifests
//
// With Options.Manifests (NewManifests: $XDG_CACHE_HOME/agentpool/manifests), every server
// records what it lists under the key its pins have (pin.Key, with the origin "" for skills'
// and ACP clients' servers) joined with its cwd, env and headers when it sets them (hashed),
// and a lazy server without
// static tools is listed from that
// record until its first call starts it (mcpcap.WithManifests).
//
// Agents get their own level, skill manager and tool filter (Agent.Include, Agent.AllowsTool);
// AddSessionServer adds a client's server to its session. Rationale: docs/design/host.md and
// docs/design/reconcile.md.
package host
