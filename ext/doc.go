// Package ext holds the core contracts of RFC-0051 (spec/RFC-0051-extension-source-architecture.md,
// "Technical Design"): the resource interfaces every extension source implements, the entry types
// they exchange, change notification, scopes, and the ExtensionRegistry that answers "what does this
// caller see?".
//
// RFC sections implemented here:
//   - "Resource Protocol Interfaces": SkillResource, MCPResource (split into ToolProvider and
//     ResourceSource), CommandResource, ChangeObservable, and the entry types.
//   - "Scope" and "ExtensionRegistry": Scope, ScopeLevel, Registry.
//   - "URI Routing", "Security Considerations / URI Injection": ParseURI, Registry.ResolveURI,
//     Confine and OpenConfined.
//   - "Composition via Client Sharing": Registry.AddChild, ErrCircularComposition, depth warning.
//   - "Lifecycle Management / Shutdown": Registry.Close and Registry.CloseScope.
//
// Decisions taken where the RFC is silent:
//   - Capability (the RFC's AbstractCapability) is only a Name and Close, with the lifecycle
//     contract written on it and checked by ext/exttest. Everything else is an optional
//     interface found by type assertion, the database/sql and Caddy way: ToolProvider,
//     Instructor, TurnInstructor, SkillResource, ResourceSource, CommandResource, Completer,
//     HealthReporter, ResourceSubscriber, LogSource, Composite, ChangeObservable, Originator.
//   - Where a capability's content comes from is explicit: an Origin (local, project, remote)
//     given at registration (WithOrigin) or said by the capability (Originator), never guessed
//     from the interfaces it implements. Routing ranks skill sources by it (local first) and
//     routes mcp://<server>/… only to remote ones.
//   - The contracts lose nothing an MCP gateway must pass through: a ToolCall carries _meta
//     and a progress sink; an expanded command is a PromptResult of role-tagged, typed
//     messages; tools, resources, templates and commands carry icons; completion is
//     Completer with ext types.
//   - The caller's client (Client) travels in the context (WithClient, ClientFrom), not in
//     ToolCall, so any request may carry it; its methods take and return the MCP requests'
//     JSON, so nothing is lost between a gateway's client and an upstream server, and ext
//     stays free of any SDK. Log messages are a separate optional interface (LogSource),
//     callback based like ChangeObservable: they are not changes.
//   - Stamp identifies the state of what a scope sees (registrations and a per-registration
//     count of change events), so a view cache can tell in one pass, without a goroutine per
//     scope, whether a compiled view is still current: an event invalidates exactly the scopes
//     that see the capability that sent it.
//   - ChangeObservable is callback based (Observe), not a stream per subscriber: a producer calls
//     the callback synchronously and the callback never blocks. The registry subscribes once per
//     capability and fans events out to Changes subscribers, coalescing per (capability, kind,
//     source URI) so a slow subscriber never blocks a producer and never loses the fact that
//     something changed.
//   - Reads return []ResourceContents, as MCP resources/read does, so text and binary files and
//     multi-part upstream resources pass through unchanged.
//   - One source per skill (SEP-2640 forbids silent shadowing): ResolveURI gives a skill's
//     name to one source and reads every skill://<name>/… file from it alone, so two skills
//     are never mixed into one. The precedence is package view's for every contested name —
//     origin (local, project, remote), then scope level (turn, agent, session, pool), then
//     Visible order — so the view's Skills list and ResolveURI agree on who owns a skill; a
//     capability in several visible slots counts as its registration that precedes.
//     ResourceSources registered WithSchemes("skill") are a fallback for skills no
//     SkillResource has, never for a file a skill lacks. A file missing from the owner is
//     ErrNotFound naming the owner ("skill pdf is served by "x"; it has no scripts/run.sh").
//     A source that cannot answer (its existence check fails) is passed over, as the view
//     leaves out a source whose listing fails.
//   - The skill path of skill://a/b/c/file is the outermost of a, a/b, a/b/c that some source
//     has (its SKILL.md exists); for a path of several segments whose prefixes are no skills
//     (acme/billing/refunds) that is also the longest. Outermost, not longest, because a
//     nested skill is supporting content of the skill around it (SEP-2640 "Nested skills"):
//     a source that publishes pdf/scripts/SKILL.md must not take over another source's
//     pdf/scripts/run.sh; such a nested skill is shadowed by the owner of pdf. Finding the
//     owner costs one existence check per source and prefix, up to the first yes.
//   - Schemes an upstream server serves ("test://", "file://") need no configuration: a
//     ResourceSource that also implements SchemeSource reports them at run time, and ResolveURI
//     asks it about any scheme no registration (WithSchemes) names. It reports only what it
//     knows already, without starting or connecting anything: an unknown scheme (a typo) must
//     not start every configured server. The consequence: an upstream server's own scheme is
//     routable once the server has been listed (connected and its resources listed, as
//     compiling a view does); before that it is ErrUnknownScheme, while the same resource is
//     always reachable as mcp://<server>/<uri>, which names the server and so may start it.
//     ErrUnknownScheme therefore means no visible capability is known to serve the scheme,
//     registered or learnt; its message names the scheme, lists the schemes known in scope so
//     far (mcp and skill always) and names the SchemeSources not connected yet.
//   - Registration slots are indexed by key (pool; session id; static agent name; per session:
//     agent name and (agent, turn)), each a small slice in registration order, under one
//     RWMutex. A query does five map lookups at most, so its cost depends on what is visible,
//     not on how many sessions exist; a session of two capabilities costs about 0.5 KiB.
//   - Slot fields that do not matter at a level are ignored (a session slot's AgentName),
//     required ones are checked. A name is unique per slot; the same capability value may be
//     registered in several slots. Capabilities must be comparable (pointers): they key the
//     composition graph and the change coalescing.
//   - Composition edges come from Composite.Children, walked recursively at Register, and from
//     AddChild (whose parent must be registered). Cycles are found by a full DFS over all
//     recorded edges, so a child shared by two parents cannot hide one. Depth is the longest
//     chain through the new edge, root counted. Edges are forgotten with the parent's last
//     registration, and an AddChild edge also with RemoveChild (a child its parent dropped).
//   - Changes: each subscriber owns one goroutine and an unbuffered channel; pending events are
//     a FIFO set keyed by (capability, kind, source URI), bounded at 1024 entries, beyond which
//     new events keep only (capability, kind). Observe is called once per registration and
//     stopped at Unregister, CloseScope or Close. A stream ends when its ctx ends, at Close, or
//     when CloseScope closes a slot it lives in: its session, its session-qualified agent, its
//     turn, or (for a stream without a session) its static agent. Closing a static agent also
//     closes that agent's turns in every session, and so their streams.
//   - CloseScope with a scope of another pool closes nothing and returns nil; an empty scope is
//     an error (Close is the way to close everything).
//   - CloseScope and Close close a capability only once no registration and no registered
//     composite holds it any more, and each capability once: the same value registered at pool
//     and in a session survives the session's end.
//   - Close is idempotent: later calls wait for the first and return nil. OnClose functions
//     are bounded by CloseTimeout like capabilities; one added after Close runs at once. A
//     panic in a capability's Close is returned as an error.
//   - URIs: ParseURI also accepts scheme:opaque (Authority empty); query and fragment stay in
//     Path. ResolveURI forwards the URI as given, scheme lower-cased; for mcp://<server>/<uri>
//     the upstream URI is taken verbatim (undecoded) so its own escapes survive. A server name
//     registered at several visible levels is asked in Visible order.
//   - skill:// traversal is checked lexically on the URI decoded until stable: NUL, backslash,
//     empty skill path (skill:///…), absolute file path or drive letter, or ".." climbing above
//     the first segment of the skill path. Since a skill path may have several segments
//     (acme/billing/refunds), that is the strictest lexical bound; the capability confines
//     again on disk to the skill's real root with Confine/OpenConfined.
//   - Confine decodes percent-escapes leniently (a "%" not starting a valid escape is kept, as
//     in "100%.txt") up to 8 rounds; more is treated as an attack. A dangling symlink is judged
//     by where it points. OpenConfined opens through os.Root, so a symlink swapped in after
//     the check cannot lead out of the root, and opens only a regular file (package
//     internal/regfile: a non-blocking open checked on the descriptor), so a named pipe in a
//     skill folder cannot block a read forever; a folder is ErrNotFound. That leaf, standard
//     library only, is the one package of this module ext imports.
package ext
