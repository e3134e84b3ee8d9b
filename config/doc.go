// Package config reads agentpool's YAML configuration and builds the capabilities it declares into
// an ext.Registry. It is the composition root of DESIGN.md: the one place that knows every
// concrete source (skill, command, mcpcap, connpool) and injects them into each other.
//
// This is the part-3 subset of the configuration (part 4 completes it with agents and the server):
//
//	skills:
//	  dirs: [./skills]          # configured skill roots, highest precedence after --skills-dir
//	  watch: true               # hot reload (default true)
//	  debounce: 500ms
//	commands:
//	  dirs: [./commands]        # configured command roots
//	mcp_servers:                # name → server (see mcpcap.ServerSpec)
//	  everything:
//	    command: npx
//	    args: ["-y", "@modelcontextprotocol/server-everything"]
//	pool:
//	  max_clients: 20
//	  idle_timeout: 5m
//	extensions:
//	  max_composition_depth: 3
//	  allowed_commands: [npx, node]   # optional allowlist for stdio commands (base names)
//
// Decisions taken where DESIGN.md is silent:
//   - Unknown keys are errors, not warnings: a misspelt key in a server definition would
//     otherwise silently change behaviour. Every error names the file, line and column.
//   - ${VAR} and ${VAR:-default} are expanded in string values of fields tagged
//     config:"expand" (skills.dirs, commands.dirs, a server's command, args, env, cwd, url,
//     headers), in the YAML scalars before decoding, so a variable's value can never inject
//     YAML structure. An unset variable without a default is an error naming the variable and
//     the key. Any time.Duration field of any section must hold a duration with a unit. Both
//     are done once for every kind by walking the YAML in step with the Go types (walk.go).
//   - Each kind's section is its own struct (skill.Config, command.Config, mcpcap.Servers) with
//     its keys and a Validate(key) that keys every problem by its YAML path; Parse places each
//     problem in the file by that key.
//   - Relative skill, command and cwd paths are resolved against the config file's folder.
//   - Validation collects every problem rather than stopping at the first, and one bad server
//     does not hide the others' errors.
//   - A skill's own MCP servers are recorded as registry children of the skill manager when
//     built (Registry.AddChild) and forgotten (Registry.RemoveChild) when the manager closes
//     them (a reload dropped or replaced them), so hot reload does not accumulate them.
//   - Build registers one skill manager at pool scope, so the skills' own MCP servers use the
//     pool's "global" partition: they are shared by every session, like the skills themselves.
//     DESIGN.md partitions skill servers by session; that applies once a gateway registers a
//     skill manager per session (part 4), which then passes its session id as the partition.
//   - scope: session servers are not started by Build: Host.OpenSession registers a private
//     instance per session (its own pool partition, so its own process and state).
package config
