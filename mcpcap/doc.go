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
// LogSource, RootsWatcher, Originator (remote, "mcp://<name>") and ChangeObservable. Its
// methods are safe for concurrent use.
//
// # Lifecycle
//
//   - New does no I/O; the first listing connects. A Lazy Cap lists only its static
//     Config.Tools until its first use (a call, a prompt, a completion, a subscription, a read
//     of mcp://<name>/…); without static tools, the tools its manifest holds (WithManifests:
//     what the server listed in an earlier run, checked by the Guard as a listing is), and
//     with neither its first listing connects. Once connected, a tools listing that differs
//     from what it served emits tools_changed, and a call of a tool listed from the manifest
//     is made as the live listing serves it (not found, or blocked by the Guard, otherwise).
//     ToolsSource says which it serves.
//   - WithManifests records every tools, prompts and resource templates listing of the
//     server, as the server sent it, for the next run.
//   - A dead server is reconnected by the next access, never in the background, with
//     exponential backoff (Retry.Attempts, default 3; Retry.Backoff, default 1 s, doubled);
//     tools_changed is emitted when the server dies and when its tools differ.
//   - A failed round, or a start failing with connpool.ErrStartTimeout or ErrPermanent,
//     degrades the Cap: every access fails at once with ErrDegraded naming the last error,
//     and a probe is made at most once per the round's longest delay.
//   - Config.Server.StartupTimeout bounds a start (30 s), Config.Timeout a call (60 s). A Cap
//     never closes a client it leased or was given.
//
// # Calls and names
//
//   - A call is retried on a new connection when it never reached the server; one that may
//     have is retried only for tools annotated readOnlyHint or idempotentHint, or with
//     Retry.Calls "always", else it fails wrapping ErrConnectionLost. Cancelling a call's
//     context cancels it upstream. On a pooled connection, progress and log messages arrive
//     before the call returns.
//   - HandOver(next) sends the Cap's later tool calls to next (a reload's replacement) while
//     those in flight finish; Drain waits for them. Close after that ends the old connection.
//   - Tools are Config.Prefix + the server's names (the host sets "<server>__"; ToolPrefix
//     reports it, the namespace a view holds for the server), filtered by AllowTools and
//     DenyTools (path.Match, deny wins). Prompts are commands "<server>:<prompt>". Resources
//     are reached by their URIs or as mcp://<server>/<uri>; an unknown scheme starts no server.
//     Skills (skill://…/SKILL.md, SEP-2640 skills/list) are remote and never shadow a local
//     skill.
//   - WithGuard checks every tools listing of the server (package pin, injected by the host):
//     what the Guard keeps out is neither listed nor callable (BlockedTool gives the reason,
//     which the view and the gateway pass on to a caller), and Recheck lists again when the
//     Guard's approvals change. A ListingGuard checks the prompts and resource-templates
//     listings too (BlockedCommand gives a kept-out prompt's reason, BlockedResource the
//     reason a URI that only a kept-out template matches cannot be read). A SkillGuard checks
//     the skills too, by each SKILL.md as read: a skill kept out is in no skills or resources
//     listing, and none of its files can be read.
//   - decl.Server is a server as the config declares it. CheckCommand applies
//     extensions.allowed_commands to the resolved executable (not its args or env); a skill's
//     relative command must stay inside its folder. %v shows no env, header, auth or URL
//     secret.
//
// Rationale: docs/design/mcpcap.md.
package mcpcap
