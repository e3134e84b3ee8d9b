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
//	  catalogue_budget: 8000    # characters of the skill catalogue (default 8000; 0: no limit)
//	commands:                   # command.Config
//	  dirs: [./commands]        # configured command roots
//	mcp_servers:                # mcpcap.Servers: name → decl.Server
//	  everything:
//	    command: npx
//	    args: ["-y", "@modelcontextprotocol/server-everything"]
//	    env_passthrough: [GITHUB_TOKEN]   # variables of agentpool's environment it may see
//	    pins: block             # off | warn | block (package pin); default: the top-level pins
//	    permission: ask         # agentpool acp: ask | allow | deny, or {default: ask, tools: {read_*: allow}};
//	                            # unset: ask before a tool not annotated read-only
//	  remote:
//	    url: https://api.example/mcp
//	    auth:                   # mcpcap.Auth: agentpool as the server's OAuth client
//	      type: client_credentials          # or authorization_code (agentpool login SERVER)
//	      client_id: agentpool
//	      client_secret: ${API_SECRET}
//	pins: warn                  # Pins: the default pin policy; unset: warn, block for a trusted project's servers
//	sandbox:                    # decl.Sandbox: the default sandbox of the user's stdio servers; unset: none
//	  read: [~/projects]        # (per server: sandbox: {read, write, network, exec, profile, required} or off)
//	pool:                       # Pool
//	  max_clients: 20           # per partition: the shared servers, and each session's own
//	  max_total_clients: 4096   # all partitions together
//	  max_session_processes: 256  # stdio processes of session-scoped servers, all sessions together
//	  idle_timeout: 5m
//	extensions:                 # Extensions
//	  max_composition_depth: 3
//	  allowed_commands: [npx, node]   # optional allowlist: the executables these resolve to ([] allows none)
//	  hidden_text: sanitize     # or block: what a server without its own hidden_text does (hiddentext)
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
//	                                        # (and catalogue_budget: the pool's when unset)
//	    allow_tools: ["github__*", load_skill]  # optional: path.Match patterns on final tool names
//	    deny_tools: ["*__delete_*"]             # deny wins; both filter the agent's whole view
//	server:                     # Server: agentpool serve (a flag given overrides its key)
//	  addr: 127.0.0.1:7433      # --http
//	  session_idle_timeout: 30m # --session-idle-timeout
//	  token: ${AGENTPOOL_TOKEN:-}   # --token; bearer token for every HTTP request
//	  max_sessions: 4096        # --max-sessions, per path (/mcp, each /mcp/agents/<name>)
//	  max_sessions_per_user: 16 # with auth: per OAuth subject, per path
//	  session_grace: 2m         # a session whose GET stream closed ends after this without a request
//	  allowed_origins: [https://app.example]  # --allow-origin
//	  max_body: 4194304         # bytes
//	  read_timeout: 30s         # how long a client may take to send a request (headers and body)
//	  max_inflight: 64          # requests of one session (HTTP, stdio; stateless: one POST) served at once; more get an error
//	  max_connections: 1024     # HTTP connections held open; past it only /healthz and /readyz answer
//	  stateless: false          # true: no sessions, any replica answers any request (no scope: session servers)
//	  ready_when_degraded: false # true: /readyz is 200 while an eager server is degraded
//	  tools: search             # exposure.Config: all | search | auto, or {mode, always_on, max_active, …}
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
// Load reads a file and Parse a file's bytes; both return every problem at once, each
// "file:line:col: key: what" with the key dotted from the top ("mcp_servers.a.args[1]"):
//
//	cfg, err := config.Load("agentpool.yaml") // err: one line a problem
//	// cfg.Warnings: what is worth saying but not an error (an import's collision)
//
// Each kind's section is its own struct, in its own package, with a Validate method. What holds
// for every kind is checked here: unknown keys are errors (naming the key probably meant); a
// time.Duration needs a unit, an integer a whole number; ${VAR}, ${VAR:-default} and $$ are
// expanded inside the scalars of fields tagged config:"expand" (an unset variable without a
// default is an error, for every server, used or not); relative paths (config:"path") are taken
// from the file's folder and "~/" from the home directory; a file is one YAML document, a
// regular file of at most MaxFileSize, its aliases bounded; a server name holds no "__" and
// does not end with "_".
//
// Import: each file is JSON with servers under mcpServers (Claude, Cursor) or servers (VS Code),
// each entry read as if written under mcp_servers. The keys of Codex, Claude Code and Cline that
// mean something agentpool has are read as agentpool's (tool_timeout_sec as timeout, …; see
// foreignKeys); "disabled": true and "enabled": false leave the server out with a warning; any
// other key agentpool does not know, at any depth, is a warning naming file, line and key, never
// an error. The YAML wins a name both use, an earlier import a later one. Imports do not nest.
// LoadOwn reads a config without its imports (Import lists them, ImportsUnread is set): how an
// untrusted project's agentpool.yaml is read, so a clone cannot make agentpool read files
// elsewhere before the user trusts it.
// Rationale: docs/design/config.md.
package config
