// Package mcpcap is McpServerCap (RFC-0051 "Concrete Capability Types / McpServerCap",
// "Lifecycle Management", sequence diagrams 1, 4 and 6; DESIGN.md "MCP servers"): one MCP
// server as a capability. A Cap implements ext.Capability, ext.MCPResource,
// ext.ResourceTemplateSource, ext.SkillResource, ext.CommandResource, ext.Instructor,
// ext.Completer, ext.HealthReporter, ext.ResourceSubscriber, ext.Originator (remote,
// "mcp://<name>") and ext.ChangeObservable over a go-sdk ClientSession that is either injected (WithClient) or
// leased from a connpool.Pool (WithPool).
//
// Lifecycle: New validates and does no I/O. The first listing (Tools, resources,
// prompts, skills) connects, unless Lazy: then the static Config.Tools serve the listing
// and the first call connects (see the decision on Lazy below). Connecting is a double-checked, context-aware lock around
// an atomic pointer to the live connection, so the call path takes no lock. A goroutine per
// pooled connection waits on its Done channel and marks it dead (Close stops it), emitting
// tools_changed so that whoever holds a view asks again rather than offer a dead server's
// tools (no reconnect happens in the background: the asking does it); the next
// access reconnects with exponential backoff (Retry.Attempts tries, Backoff, 2×Backoff, …),
// re-lists tools and emits tools_changed when the list differs. When a whole round fails
// the Cap is degraded: Tools returns ErrDegraded, tools_changed is emitted once, and every access
// fails fast with ErrDegraded naming the server and its last error (with the stderr tail).
//
// Decisions taken where the RFC and DESIGN.md are silent:
//   - Lazy: a server declared lazy starts at its first use, not at its first listing. Until a
//     use connects it (the Cap is "dormant"), it lists its static tools and nothing else: no
//     resources, templates, prompts (commands) or skills, and the routing probes
//     ResourceExists and SkillExists answer false for its own URIs — the config declares only
//     its tools, and listing what it listed in an earlier run would need a cache kept across
//     runs that can go stale. A use is a call (CallTool), a prompt expanded by name
//     (GetCommand), a completion, a subscription, or a resource or skill read addressed to it
//     by name (mcp://<server>/<uri>, which ResourceExists and SkillExists answer by
//     connecting). The connect that ends dormancy emits resources_changed and skills_changed
//     (when the server declares resources) and prompts_changed and commands_changed (when it
//     declares prompts), besides tools_changed, so a view that listed nothing asks again.
//     From then on the Cap lists like any other, reconnecting when a listing needs it: once
//     started, it has been used.
//   - While degraded, an access probes with a single attempt, at most once per the longest
//     delay of a round (Backoff << (Attempts-1)); success restores the tools and emits
//     tools_changed. The RFC's "no automatic background reconnect" holds: only accesses
//     reconnect.
//   - Fast, honest start failures: a start is bounded by its own startup timeout
//     (Config.Server.StartupTimeout, the startup_timeout key, default 30 s for a first npx
//     download), never by the call timeout (Timeout bounds the call only). A start that ran
//     out of it (connpool.ErrStartTimeout) ends the connect round at once instead of being
//     repeated Retry.Attempts times, so a hung server costs one startup timeout per request,
//     not Attempts of them plus backoff. So does a start that cannot succeed by trying again
//     at once (connpool.ErrPermanent: no such command, no execute permission, HTTP 401/403/404
//     on initialize), which fails in milliseconds. Either degrades the Cap with the error
//     recorded (Status, Health, ErrDegraded), and is never cached: the next access after the
//     degraded interval starts the server again (the binary may have appeared). Accesses
//     within that interval, including those that queued behind the failed start, fail at once
//     with the recorded error.
//   - OAuth: a url server's auth key (decl.Auth) reaches connpool as declared; connpool runs the
//     flows. A server whose authorization fails at start (a user's login wanted where none can
//     be asked, a token revoked and not refreshable, credentials refused) fails with
//     connpool.ErrPermanent, so the Cap is degraded at once with the reason ("needs login:
//     run agentpool login SERVER") and probed again only once per degraded interval, never
//     in a loop. Secrets of the auth key (client_secret) are never printed: String leaves
//     auth out.
//   - Tools returns connection errors (ErrDegraded while degraded); the view leaves such a
//     Cap out of a compiled toolset and reports why, so one unreachable server never fails a
//     whole toolset.
//   - Progress: a call with ext.ToolCall.Progress sends a progress token of the Cap's own
//     making ("agentpool-<random>-<n>", unique across Caps, since Caps sharing a pooled
//     connection all receive its notifications) in place of any token in the caller's _meta;
//     the server's notifications for it reach the sink until the call returns: on a pooled
//     connection, every one the server sent ahead of the result reaches it before CallTool
//     returns (connpool delivers progress in transport order). The caller's own token (a
//     gateway's client) is the caller's to map; without a sink it is not sent at all. An
//     injected client's progress arrives only through HandleNotification, from the SDK's
//     handler goroutine, so for it that ordering is not guaranteed.
//   - The server's requests to its client (sampling, elicitation, roots): a call (tools/call,
//     prompts/get, resources/read) records the ext.Client its context carries (none: a call
//     without one) with the pooled connection (connpool.Conn.Track), so connpool can route the server's requests made during it to
//     that client; see connpool's rule. A connect whose context carries an ext.Client
//     gives it to the pool too (connpool.WithPeer), so a session's own server can ask it
//     before any call. An injected client's owner routes them itself.
//   - Log messages (notifications/message) reach the ObserveLog observers in the order the
//     server sent them, ahead of the result of a call that was running (connpool delivers
//     them in transport order). SetLogLevel forwards logging/setLevel when the server
//     declares logging, keeps the most verbose level asked for (the observers filter at
//     their own), also across the Caps sharing a pooled connection (one server session,
//     one level: a Cap's less verbose level never replaces another's), and sends it again
//     on every new connection.
//   - Prompts keep their messages' roles and typed content (ext.PromptResult); named
//     arguments pass as they are, positional ones bind in declaration order.
//   - Resource subscriptions are counted per URI and per server session, across the Caps
//     sharing a pooled connection (the server keeps one subscription per session): the first
//     holder subscribes upstream, the last one to unsubscribe (or Close) unsubscribes. They
//     are made again on every reconnect (a new server session knows nothing of the old one's).
//   - Call retry: a request the SDK refused before writing it (ErrConnectionClosed: the
//     connection was already closing) never reached the server and is always repeated on a
//     new connection. A request that may have reached it is repeated only for tools
//     annotated readOnlyHint or idempotentHint, or with Retry.Calls "always", never with
//     "never"; otherwise the error wraps ErrConnectionLost and says why it was not retried.
//     Annotations come from the server's listing (or the static tools of a Lazy Cap).
//     A call is "cut off by a lost connection" when its error wraps io.EOF,
//     ErrConnectionClosed, ErrSessionMissing or os.ErrClosed (our pipe end, closed when the
//     server's group died), or is an HTTP request that got no HTTP
//     response (the SDK's "rejected by transport" around a *url.Error; a failed dial means
//     the request never left), or (other transport errors) when the connection ends within
//     200 ms; an error the server sent (jsonrpc.Error) never is.
//   - extensions.allowed_commands (CheckCommand) matches executables, not names:
//     the command and each entry are resolved to a real path — a bare name through
//     agentpool's own PATH (the one exec looks it up in when it starts the server; a PATH in
//     the server's env changes only what the server itself runs), a relative path from the
//     server's cwd, then symlinks — and the command is allowed when its path is one of the
//     entries'. A skill's `command: ./node` is its own script, so allowed_commands [node]
//     refuses it, naming both paths; listing its path allows it. A link to an allowed binary
//     runs that binary and is allowed (one multi-call binary, busybox, allows all its names).
//     The check runs when the config or the skill's declaration is read, not again at spawn:
//     a relative command that is a symlink, or that does not exist yet, may be changed before
//     a later start (after a crash or idle expiry) runs it. The list restricts the executable
//     only, not what it is told to run: args and env are not checked, so an interpreter or
//     launcher on it (sh, node, npx, uvx, python) runs whatever its args say (`sh -c …` when sh
//     is listed), and a declaration's env can steer any listed program (LD_PRELOAD,
//     NODE_OPTIONS, or a PATH in which a `#!/usr/bin/env node` script finds its node).
//   - A skill's relative command (./srv, bin/srv) must resolve inside its skill folder (after
//     its cwd, .. and symlinks), with or without allowed_commands; absolute and bare names
//     are not confined.
//   - Environment: a stdio server gets connpool's minimal set plus Env; env_passthrough names
//     more variables of agentpool's environment to pass as they are. A skill's server gets the
//     minimal set and its own env only: its declaration cannot pass through anything (a
//     skill comes from a folder, and the user has not said which of their variables it may
//     see).
//   - Secrets: errors, logs, Status and Health show a server's URL redacted (connpool does it
//     at the source: the SDK never has the real URL); %v of a decl.Server shows no env, header
//     or URL secret.
//   - Tool names: Prefix is prepended (nil: none; the host sets "<server>__", ext.ToolName);
//     AllowTools/DenyTools are path.Match patterns on the server's names, deny wins.
//   - An injected client is never closed by the Cap and cannot be reconnected: when it dies
//     the Cap degrades for good. Its notifications reach the Cap only through
//     HandleNotification, and skills/list only if RegisterSkillMethods ran on its Client.
//   - Listings (tools, resources, templates, prompts, skills/list) follow at most 1000 pages;
//     a server repeating a next cursor, or paginating beyond that, gets an error naming the
//     method instead of an endless loop. Null entries in a listing are skipped.
//   - Resources: listings (and templates) are cached per connection and dropped on
//     resources list_changed or reconnect; ResourceExists answers from the cache, matching
//     templates with RFC 6570. URIs may be given as mcp://<server>/<original-uri>.
//     ResourceSchemes (ext.SchemeSource) never starts or connects the server: it answers from
//     the live connection's listing, else from the last listing seen (kept across reconnects),
//     else with none. So a URI of an unknown scheme (a typo) starts no server, and a server's
//     own scheme routes to it only once it has been listed; mcp://<server>/<uri> always does.
//   - Prompts are commands named "<server>:<prompt>", or by the server's own name when
//     Prefix is "" (set, and empty: a gateway in front of one server is then transparent;
//     "<server>:<prompt>" stays the qualified name); GetCommand binds positional arguments
//     in declaration order, joins extra arguments into the last one, and rejects a missing
//     required argument with an error naming it.
//   - Skills: skill://…/SKILL.md resources, plus SEP-2640 skills/list entries when the
//     server declares io.modelcontextprotocol/skills. Origin is "mcp://<server>" (untrusted).
//     SkillExists and ReadSkill answer only for URIs the server lists (a "dynamic" skill's
//     root prefix included) and reject dot segments in any percent-encoding, backslashes and
//     NUL with ext.ErrPathTraversal. The registry asks local sources first, so an MCP skill
//     never shadows a local one.
//   - Notifications: tools list_changed marks the tool list stale (re-listed on next access)
//     and emits tools_changed; resources list_changed emits resources_changed (and
//     skills_changed when the server serves skills); prompts list_changed emits
//     prompts_changed and commands_changed; resources/updated emits resources_changed with
//     SourceURI (and skills_changed for a skill file).
package mcpcap
