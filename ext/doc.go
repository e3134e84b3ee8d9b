// Package ext holds the core contracts of RFC-0051 ("Technical Design"): the resource interfaces
// every extension source implements, the entry types they exchange, change notification, scopes,
// and the ExtensionRegistry that answers "what does this caller see?".
//
//	reg := ext.NewRegistry(nil)
//	defer reg.Close(ctx)
//	if err := reg.Register(skills, ext.LevelPool, ext.Scope{}); err != nil {
//		return err // errors.Is(err, ext.ErrDuplicate), ext.ErrCircularComposition, …
//	}
//	scope := ext.Scope{SessionID: "s1"}
//	if err := reg.Register(own, ext.LevelSession, scope); err != nil {
//		return err
//	}
//	caps := reg.Visible(scope) // the pool's, then the session's; query each by type assertion
//	data, err := reg.ResolveURI(ctx, "skill://pdf/SKILL.md", scope)
//	defer reg.CloseScope(ctx, scope) // unregisters and closes the session's capabilities
//
// # Capabilities
//
// Capability is a Name and a Close whose contract is written on it (safe unused, twice and
// concurrently; methods after Close return ErrClosed) and checked by package ext/exttest.
// Everything else (ToolProvider, SkillResource, ResourceSource, CommandResource,
// ChangeObservable, …) is an optional interface found by type assertion. Where a capability's content comes from (local,
// project, remote) is an Origin given at registration (WithOrigin) or said by the capability,
// never guessed. The caller's client travels in the context (WithClient, ClientFrom). Tool
// names leaving a namespace are ToolName(namespace, tool) = "<namespace>__<tool>".
//
// # The registry
//
//   - A capability (comparable: a pointer) is registered at a level (LevelPool, LevelSession,
//     LevelAgent, LevelTurn) in a slot, its name unique there (ErrDuplicate). Visibility walks
//     pool → session → agent → turn, never upward; a query costs what is visible, not what
//     other sessions hold. A value registered in several slots is closed once none holds it.
//   - Composition (Composite.Children, AddChild): a cycle is ErrCircularComposition; a chain
//     deeper than RegistryOptions.MaxCompositionDepth (default 3, root counted) logs a warning
//     and registers.
//   - Changes(ctx, scope) merges the events of every capability visible at scope, including
//     registrations; a slow subscriber never blocks a producer and never loses that something
//     changed (events coalesce). The stream ends with ctx, Close, or CloseScope of its slot.
//     Watch(scope, notify) is the same without a goroutine or channel: notify says an event is
//     pending and Take hands the pending events over.
//     Stamp(scope) tells a cache in one comparison whether a view is current.
//   - CloseScope ends a session, agent or turn; Close ends everything (turn → agent → session →
//     pool, then OnClose functions), each capability bounded by RegistryOptions.CloseTimeout
//     (default 5 s, then abandoned with a logged error). Close is idempotent. All methods are
//     safe for concurrent use.
//   - The registry does not open sessions; the program that does (package host) may install a
//     check (SetSessionCheck) that consumers ask before working at a session's scope
//     (CheckSession: package agent does), so that an unopened session is an error, not a view
//     without the session's capabilities.
//
// # URIs
//
// ResolveURI routes skill://<skill-path>/<file> to the one source that owns the skill (local
// origins first, then the narrowest scope, then Visible order; skill://<skill-path> alone is
// its SKILL.md), mcp://<server>/<uri> to that
// server, and any other scheme to the capabilities registered for it (WithSchemes) or that
// report it (SchemeSource); otherwise ErrUnknownScheme, naming the scheme and those known. A
// file a skill lacks is ErrNotFound naming its owner. skill:// paths are checked for traversal
// (NUL, backslashes, absolute paths, ".." in any percent-encoding: ErrPathTraversal), and
// Confine and OpenConfined confine a path to a root on disk after resolving symlinks;
// OpenConfined opens regular files only.
//
// Rationale: docs/design/ext.md.
package ext
