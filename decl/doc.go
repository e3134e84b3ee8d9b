// Package decl is the declaration of one MCP server: every key a user's config, a project's
// agentpool.yaml, an imported JSON file, a plugin or a skill can write for it (Server and its
// parts Auth, Retry and StaticTool), the values its keys take, and its validation.
//
// A Server is what was written, nothing more: config decodes into it (expanding ${VAR} where
// a field is tagged config:"expand", resolving paths where tagged config:"path"), and the
// same value is carried to the pool, the capability, a skill's servers and trust. Trust
// digests a Server as written, before expansion, so every field of Server is part of what a
// user trusts.
//
// The package imports only the standard library.
package decl
