// Package config reads agentpool's YAML configuration file: it parses, expands, decodes and
// validates it into a Config, naming the file, line and column of every problem. It is the
// file format of DESIGN.md; it builds nothing (package host does, from a Config).
//
// The configuration:
//
//	skills:                     # skill.Config
//	  dirs: [./skills]          # configured skill roots, highest precedence after --skills-dir
//	  watch: true               # hot reload (default true)
//	  debounce: 500ms
//	  max_folders: 2000
//	commands:                   # command.Config
//	  dirs: [./commands]        # configured command roots
//	mcp_servers:                # mcpcap.Servers: name → decl.Server
//	  everything:
//	    command: npx
//	    args: ["-y", "@modelcontextprotocol/server-everything"]
//	    env_passthrough: [GITHUB_TOKEN]   # variables of agentpool's environment it may see
//	  remote:
//	    url: https://api.example/mcp
//	    auth:                   # decl.Auth: agentpool as the server's OAuth client
//	      type: client_credentials          # or authorization_code (agentpool login SERVER)
//	      client_id: agentpool
//	      client_secret: ${API_SECRET}
//	pool:                       # Pool
//	  max_clients: 20           # per partition: the shared servers, and each session's own
//	  max_total_clients: 4096   # all partitions together
//	  idle_timeout: 5m
//	extensions:                 # Extensions
//	  max_composition_depth: 3
//	  allowed_commands: [npx, node]   # optional allowlist: the executables these resolve to ([] allows none)
//	plugins:                    # plugin.Config: Claude Code and Codex plugins
//	  dirs: [./my-plugin]       # plugin folders, each enabled
//	  marketplaces:             # marketplace folders (or their marketplace.json)
//	    - path: ~/src/team-plugins
//	      enable: [reviewer, "*"]   # the names of its plugins to use; "*" all
//	  disable: [noisy]          # plugins not used, wherever found
//	  import_installed: true    # also the plugins Claude Code and Codex have installed and enabled
//	agents:                     # Agents: name → Agent (served at /mcp/agents/<name>)
//	  reviewer:
//	    mcp_servers:            # the agent's own servers, same keys as mcp_servers
//	      github: {url: https://api.example/mcp, scope: session}
//	    skills: {dirs: [./review-skills]}   # the agent's own skill roots, ahead of the pool's
//	    allow_tools: ["github__*", load_skill]  # optional: path.Match patterns on final tool names
//	    deny_tools: ["*__delete_*"]             # deny wins; both filter the agent's whole view
//	server:                     # Server: agentpool serve (a flag given overrides its key)
//	  addr: 127.0.0.1:7433      # --http
//	  session_idle_timeout: 30m # --session-idle-timeout
//	  token: ${AGENTPOOL_TOKEN:-}   # --token; bearer token for every HTTP request
//	  max_sessions: 4096        # --max-sessions, per path (/mcp, each /mcp/agents/<name>)
//	  allowed_origins: [https://app.example]  # --allow-origin
//	  max_body: 4194304         # bytes
//	  read_timeout: 30s         # how long a client may take to send a request (headers and body)
//	  stateless: false          # true: no sessions, any replica answers any request (no scope: session servers)
//	  auth:                     # ServerAuth: an OAuth protected resource (claude.ai, ChatGPT connectors)
//	    issuer: https://idp.example         # discovery, JWKS (rotation followed)
//	    resource: https://agentpool.example # the base URL clients use; tokens' audience is it + the path
//	    audiences: [api://agentpool]        # accepted besides the path's resource URL
//	    scopes: [mcp]                       # required of every token
//	    agent_scopes: true                  # /mcp/agents/<name> needs agent:<name>
//	    leeway: 30s                         # clock difference allowed on exp, nbf, iat
//	import:                     # JSON files of other MCP clients whose servers are added to mcp_servers
//	  - .mcp.json               # Claude Code, Claude Desktop, Cursor: {"mcpServers": {…}}
//	  - .vscode/mcp.json        # VS Code: {"servers": {…}}
//
// Each extension kind owns its section: the section is that kind's struct, in the kind's
// package (config imports skill, command and mcpcap for those types only), one field of Config
// naming its key, with its YAML keys and a Validate(key string) error method that reports every
// problem keyed by its YAML path ("mcp_servers.x.retry.calls: …"). Config.Validate calls it
// with the section's key; Parse finds each problem's key in the syntax tree (a problem says
// its key with a Key() string method) and prefixes "file:line:col". What is the same for every
// kind is done once, here, over the YAML before it is decoded, by walking the syntax tree in
// step with the Go type it decodes into:
//   - Durations: any time.Duration field, in any kind's struct, must hold a duration with a unit
//     ("500ms", "5m"); a bare number (30) or any other value is an error at its position. No
//     list of duration keys exists: a kind adds a duration by declaring the field.
//   - Integers: any integer field must hold a whole number; 2.5 (or 3.0, 1e3) is an error at
//     its position rather than silently truncated.
//   - ${VAR} and ${VAR:-default} (and $$ for a literal $) are expanded in string values of
//     fields tagged config:"expand", and of the lists and maps such a field holds (values, not
//     keys), in the scalar itself before decoding, so a variable's value can never inject YAML
//     structure. The expanded keys are those of before: skills.dirs, commands.dirs,
//     plugins.dirs, plugins.marketplaces[].path, and a server's command, args, env, cwd, url,
//     headers and auth's client_id, client_secret, private_key_file and client_metadata_url. Other values (a tool's description or
//     input_schema, prefix, allow_tools) are left as written. An unset variable without a
//     default is an error naming the variable, the key and the position. A default is
//     expanded in turn when used, as in a shell: ${A:-${B:-x}}, ${A:-$$HOME}.
//   - Relative paths in fields tagged config:"path" (skills.dirs, commands.dirs,
//     plugins.dirs, plugins.marketplaces[].path, a server's cwd and auth.private_key_file) are resolved against the config file's folder, after expansion; one that is "~" or
//     starts with "~/" is taken from the home directory instead, as a shell would.
//
// Decisions taken where DESIGN.md is silent:
//   - Unknown keys are errors, not warnings: a misspelt key in a server definition would
//     otherwise silently change behaviour. Every error names the file, line and column.
//   - Validation collects every problem rather than stopping at the first, and one bad server
//     does not hide the others' errors. Problems found while walking the tree (expanding
//     ${VAR}, checking durations and integers) are reported together with the validation
//     problems, first: fixing one to learn of the next is what an editor's user hates. A
//     validation problem of a value the walk could not read (or of a key under it) is left
//     out, since that value is the unexpanded text or the default and the walk already said
//     what is wrong there. A value that cannot be decoded at all (a list where a mapping
//     goes) still stops before validation: there is no Config to validate.
//   - A problem whose key is not in the file (a missing command) is placed at the nearest
//     enclosing key that is (the server).
//   - extensions.allowed_commands applies to every section with a CheckCommands method
//     (mcp_servers), and the host applies it to a skill's own servers too.
//   - A file holds one YAML document: a second one with content (after "---") is an error at
//     its first key, not ignored with whatever keys it holds. A "%YAML" directive, a trailing
//     "---" or "..." and a leading byte-order mark are tolerated.
//   - Messages are in the file's terms: every one is "file:line:col: key: what", the key
//     dotted from the top ("mcp_servers.a.args[1]"; "top level" for the file itself), what is
//     wrong said as "want a list, got a string", never as Go types. A syntax error, found
//     before there is a tree to find keys in, is placed under the key its line's indentation
//     says. An unknown key names the key it was probably meant to be: another tool's spelling
//     of it (mcpServers, Claude's and Cursor's key, mcp-servers, servers: mcp_servers;
//     maxClients: max_clients), else a typo's correction, else the keys its mapping has.
//     Reading a Claude or Cursor JSON file as it is, is what import is for.
//   - An unset ${VAR} without a default is an error when the file is read, for every server,
//     used or not: the file is checked whole before anything starts, and an error that waits
//     for a server's first use would surface mid-session. A variable that may be unset takes
//     a default, ${TOKEN:-} for empty (the README's example does).
//   - Bounded input. Load reads only a regular file (a named pipe, a device such as /dev/zero,
//     a socket or a folder is refused at once, checked on the opened descriptor: package
//     internal/regfile) of at most MaxFileSize, 1 MiB, some thousand times a real config; the
//     cap is not configurable, since it guards the file that would configure it. YAML aliases
//     are bounded as in a SKILL.md frontmatter (frontmatter.ExpansionLimit: 4 times the file's
//     size plus 64 KiB once expanded), measured on the decoded value before anything expands
//     it; the error names the innermost key whose value alone is over the limit.
//   - agents and server are the host's and the server's own sections (like pool and
//     extensions), so their structs live here. An agent's server may not take the name of one
//     of mcp_servers (the agent sees both); two agents may use one name. An agent's name is a
//     URL path segment: letters, digits, '.', '_', '-'. A project's agentpool.yaml adds only
//     its mcp_servers to the user's config (package host): its agents and server sections
//     are not used, so a cloned repository cannot open a port or change a token.
//   - server.token is expanded like a server's headers, so ${VAR} keeps the secret out of the
//     file; server.max_body is a byte count, not a size with a unit.
//   - A server name must not hold "__" (ext.ToolSep) or end with "_": its tools'
//     "<server>__<tool>" names would read back as another server's.
//
// Import (import.go): each file of the import list (paths relative to the config's folder,
// ~ and ${VAR} as for the other paths) is JSON holding the servers by name under mcpServers
// (Claude Desktop, Claude Code's .mcp.json, Cursor) or servers (VS Code's .vscode/mcp.json).
//   - Each entry becomes an mcp_servers entry as if written in the YAML: decoded into the same
//     decl.Server by the same walk (${VAR} and ${VAR:-default} expanded, as Claude Code
//     does too; cwd resolved against the JSON file's folder), and validated the same way,
//     extensions.allowed_commands included. Every problem names the JSON file, its line and
//     its key in that file's terms ("mcp.json:4:7: mcpServers.a.url: …"). All of the YAML's
//     and every imported file's problems are reported at once.
//   - "type": "http" is streamable-http; stdio, sse and streamable-http are as they are. A
//     number as "timeout" is Cline's seconds; a string is a duration, as in the YAML.
//   - The keys other applications write in an entry and agentpool has no use for
//     (autoApprove, alwaysAllow, envFile, dev, description) are left out, each a warning;
//     "disabled": true leaves the server out, a warning too. Any other unknown key is an
//     error, as in the YAML: a user pointing import at an IDE's file is not refused for the
//     IDE's keys, and a misspelt key is not silently dropped. A file's top-level keys other
//     than mcpServers or servers (Claude Desktop's preferences, VS Code's inputs) are the
//     other application's and not read, but for "import": imports do not nest, and an import
//     inside an imported file is an error. // and /* */ comments are allowed (VS Code).
//   - Collisions are warnings (Config.Warnings, "file:line:col: key: what"), never silent:
//     the YAML's own server wins a name both use, an earlier import wins over a later one. An
//     imported server named like one of an agent's servers is an error, as in the YAML.
//   - Bounded as the config itself: each file a regular file of at most MaxFileSize, at most
//     MaxImports files; a file listed twice is an error.
//   - Config.Source says which file declares a server; Config.Declared includes the imported
//     servers as written (${VAR} kept), so a project's imported servers are fingerprinted for
//     trust as its own are: an import is a declaration like any other.
package config
