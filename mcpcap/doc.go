// Package mcpcap is McpServerCap (RFC-0051 "Concrete Capability Types / McpServerCap",
// "Lifecycle Management"; DESIGN.md "MCP servers"): one MCP server as a capability, over a
// go-sdk ClientSession leased from a connpool.Pool (WithPool) or injected (WithClient).
//
//	c, err := mcpcap.New(mcpcap.Config{
//		Name:   "github",
//		Server: connpool.ServerConfig{Command: "github-mcp-server", Args: []string{"stdio"}},
//	}, mcpcap.WithPool(pool, connpool.GlobalPartition))
//	if err != nil {
//		return err // errors.Is(err, mcpcap.ErrInvalidConfig)
//	}
//	defer c.Close(ctx)
//	err = reg.Register(c, ext.LevelPool, ext.Scope{}) // or use it directly:
//	tools, err := c.Tools(ctx)                        // connects
//
// A Cap implements ext.Capability, ToolProvider, MCPResource, ResourceTemplateSource,
// SkillResource, CommandResource, Instructor, Completer, HealthReporter, ResourceSubscriber,
// LogSource, RootsWatcher, Originator (remote, "mcp://<name>") and ChangeObservable. Its methods are safe
// for concurrent use.
//
// # Lifecycle
//
//   - New validates and does no I/O. The first listing connects; a Lazy Cap lists its static
//     Config.Tools (and nothing else) until its first use — a call, a prompt, a completion, a
//     subscription, or a read addressed to it as mcp://<name>/… — connects it.
//   - When the server dies, tools_changed is emitted; nothing reconnects in the background.
//     The next access reconnects with exponential backoff (Retry.Attempts tries, default 3;
//     Retry.Backoff, default 1 s, doubled each time), re-lists, and emits tools_changed when
//     the list differs.
//   - When a whole round fails, or a start fails with connpool.ErrStartTimeout or
//     connpool.ErrPermanent, the Cap is degraded: every access fails at once with an error
//     wrapping ErrDegraded that names the server and its last error; tools_changed is emitted
//     once; an access probes again at most once per the round's longest delay, and success
//     restores it.
//   - Config.Server.StartTimeout bounds one start (default 30 s); Config.Timeout bounds each
//     call (default 60 s).
//   - A Cap never closes a pooled client it merely leased, nor an injected one; an injected
//     client that dies degrades the Cap for good.
//
// # Calls
//
// A call is retried on a new connection when the request never reached the server. One that may
// have reached it is retried only for tools annotated readOnlyHint or idempotentHint, or with
// Retry.Calls "always" (never with "never"); otherwise its error wraps ErrConnectionLost and says
// why it was not retried. An error the server sent is never retried. Cancelling a call's
// context cancels it upstream and keeps the connection. Progress reaches ext.ToolCall.Progress
// and log messages reach ObserveLog observers in the server's order, before the call returns.
// Server-to-client requests (sampling, elicitation, roots) go to the ext.Client the call's
// context carries (ext.WithClient).
//
// # Names
//
//   - Tools: Config.Prefix + the server's name (the host sets "<server>__"); AllowTools and
//     DenyTools are path.Match patterns on the server's own names, deny wins.
//   - Prompts are commands "<server>:<prompt>", or the prompt's own name when Prefix is "";
//     positional arguments bind in declaration order, extra ones join the last, a missing
//     required one is an error naming it.
//   - Resources are addressed by their own URIs or as mcp://<server>/<uri>. A server's own
//     scheme routes to it only once it has been listed: an unknown scheme starts no server.
//   - Skills are its skill://…/SKILL.md resources plus SEP-2640 skills/list entries
//     (RegisterSkillMethods); their origin is remote, and they never shadow a local skill.
//     Dot segments, backslashes and NUL in a skill URI are ext.ErrPathTraversal.
//
// # Server declarations
//
// ServerSpec is a server as the config file declares it (Servers: name → ServerSpec).
// ServerSpec.CheckCommand applies extensions.allowed_commands: the command and each entry are
// resolved to a real path (PATH, the server's cwd, symlinks) and compared; it restricts the
// executable only, never its args or env. A skill's relative command must resolve inside its
// skill folder. A stdio server gets connpool's minimal environment plus Env and what
// env_passthrough names; a skill's server gets no passthrough. String and %v show no env,
// header, auth or URL secret.
//
// Listings follow at most 1000 pages. Rationale: docs/design/mcpcap.md.
package mcpcap
