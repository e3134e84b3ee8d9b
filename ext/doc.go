// Package ext holds the core contracts of RFC-0051 (spec/RFC-0051-extension-source-architecture.md,
// "Technical Design"): the resource interfaces every extension source implements, the entry types
// they exchange, change notification, scopes, and the ExtensionRegistry that answers "what does this
// caller see?".
//
// RFC sections implemented here:
//   - "Resource Protocol Interfaces": SkillResource, MCPResource (split into ToolSource and
//     ResourceSource), CommandResource, ChangeObservable, and the entry types.
//   - "Scope" and "ExtensionRegistry": Scope, ScopeLevel, Registry.
//   - "URI Routing", "Security Considerations / URI Injection": ParseURI, Registry.ResolveURI,
//     Confine and OpenConfined.
//   - "Composition via Client Sharing": Registry.AddChild, ErrCircularComposition, depth warning.
//   - "Lifecycle Management / Shutdown": Registry.Close and Registry.CloseScope.
//
// Decisions taken where the RFC is silent:
//   - Capability (the RFC's AbstractCapability) carries the tools it contributes and how to call
//     them, its instructions, and Close. Optional behaviour is an optional interface found by type
//     assertion (TurnInstructor, Composite, ChangeObservable), the database/sql and Caddy way.
//   - ChangeObservable is callback based (Observe), not a stream per subscriber: a producer calls
//     the callback synchronously and the callback never blocks. The registry subscribes once per
//     capability and fans events out to Changes subscribers, coalescing per (capability, kind,
//     source URI) so a slow subscriber never blocks a producer and never loses the fact that
//     something changed.
//   - Reads return []ResourceContents, as MCP resources/read does, so text and binary files and
//     multi-part upstream resources pass through unchanged.
//   - Local skill sources are asked before remote ones: for skill:// URIs ResolveURI asks
//     SkillResources that are not also MCPResources (that is, not backed by an MCP server) first.
package ext
