// Package plugin reads Claude Code and Codex plugins: plugin folders, the marketplaces that
// list them, and the plugins those two tools have installed. It is one more extension source
// (issue "Plugins"): it reads and reports, and runs nothing. The host turns a Plugin's
// SkillDirs, CommandDirs and MCP into skills ("plugin:skill"), commands ("/plugin:command")
// and servers (each MCPSource through config.ParseServers with Plugin.Vars). It imports only
// the standard library, internal/regfile and go-toml (Codex's config.toml).
//
// A plugin folder holds an optional manifest (.claude-plugin/plugin.json, Claude Code's, or
// .codex-plugin/plugin.json, Codex's; when both are there Claude Code's is read and the other
// is a debug diagnostic) and the standard layout: skills/, commands/, agents/*.md,
// hooks/hooks.json and .mcp.json at the root. The manifest's skills, commands, agents and
// hooks (a path or a list of paths) and mcpServers (a path, a list of paths, or an inline
// object) are added to the standard layout's, not instead of it.
//
// Decisions:
//   - Names. A plugin's name is its manifest's, else its marketplace entry's (a marketplace
//     entry's name wins over a differing manifest name, with a warning: it is the name
//     enable lists), else its folder's. It must be kebab-case, ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$,
//     at most 64 bytes: it namespaces everything the plugin brings (name:skill), so it never
//     holds ':' or '.'. An invalid manifest name is an error diagnostic and the folder's name
//     is used; an invalid folder name is made kebab-case ("My Plugin.v2" → "my-plugin-v2").
//     A Plugin always has a valid name.
//   - One plugin a name. Load reads in precedence order: plugins.dirs, the marketplaces in
//     order, then the installed plugins (Claude Code, then Codex). A later plugin of a name
//     already taken is left out, with a diagnostic naming both folders: two plugins can never
//     contribute to one namespace, so collisions between plugins cannot happen.
//   - Enabling: a plugin of dirs is enabled; a marketplace's when its name is in that
//     marketplace's enable (or enable holds "*"); an installed one when Claude Code or Codex
//     has it enabled. Then plugins.disable turns off, then the State file (agentpool plugins
//     enable|disable NAME, <config home>/agentpool/plugins.json) overrides everything. A
//     plugin that is not enabled is still read and listed, so `plugins list` can say what it
//     would bring.
//   - Listed, never run: agent definitions (Agents), hooks (Hooks; "<manifest>#hooks" when
//     inline), and the manifest keys agentpool understands but does not load (lspServers,
//     outputStyles, userConfig, channels, settings, Codex apps, dependencies: a debug
//     diagnostic each). Any other key is Unknown and a debug diagnostic, never an error.
//   - Containment. Every manifest path is relative to the plugin folder and must stay in it
//     after resolving symlinks (an absolute path, "../", or a symlink pointing out is an
//     error diagnostic and not read); a standard-layout folder or .mcp.json, or the manifest
//     itself (or its .claude-plugin/.codex-plugin folder), that is a symlink pointing out is
//     not read either. A marketplace's local source must stay inside the marketplace
//     folder (the folder holding .claude-plugin/ or .agents/) the same way: "../../etc", "/etc"
//     and a symlink out are each an error diagnostic naming the marketplace file and the
//     entry's line. A plugin folder that is missing, not a folder or a symlink loop is
//     LoadPlugin's error (ErrNotFolder), a diagnostic in Load.
//   - Bad input is never fatal: a manifest that is not JSON, of wrong types (name a number,
//     skills an object, author a number) keeps everything else usable, each problem a
//     Diagnostic naming the file and, where the JSON walk finds it, the key's line. Every
//     JSON file is read as a regular file of at most MaxFileSize (internal/regfile).
//   - .mcp.json is read (bounded) but not validated here: config.ParseServers does that, with
//     the positions of the file it is given; an inline mcpServers hands over the manifest's
//     bytes for that reason.
//   - Sources not on disk (github, url, git-subdir, npm) are Entries with Dir "" and Fetch
//     set: "claude plugin install NAME@MARKETPLACE" for a Claude Code marketplace, "git clone
//     [--branch REF] URL" otherwise (REF and URL, which the marketplace file writes, quoted for
//     the shell). Nothing is fetched: no network is needed to use the local ones.
//   - Root variables (Vars): CLAUDE_PLUGIN_ROOT and PLUGIN_ROOT are the plugin folder;
//     CLAUDE_PLUGIN_DATA and PLUGIN_DATA are DataDir when set (for a Claude Code install,
//     ~/.claude/plugins/data/<name-marketplace>), absent otherwise so that ${VAR:-default}
//     applies. config.ParseServers resolves a relative cwd against CLAUDE_PLUGIN_ROOT, as
//     Codex resolves a plugin server's relative cwd against the plugin root.
//   - Installed plugins (plugins.import_installed): Claude Code's
//     ~/.claude/plugins/installed_plugins.json ({"version": 2, "plugins": {"name@marketplace":
//     [{scope, installPath, version, …}]}}; version 1 had one object a key; the "user" scope's
//     install is preferred), enabled when ~/.claude/settings.json's enabledPlugins has
//     "name@marketplace": true. installPath is the user's own Claude Code's record and is read
//     where it points, like a folder of plugins.dirs (Claude Code loads the plugin from there,
//     and the containment above is about a plugin's or marketplace's own files, not where the
//     user installed it); one that is not absolute is an error diagnostic, not read against the
//     working folder. Codex's $CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/
//     ($CODEX_HOME defaulting to ~/.codex; the highest version folder is used), enabled when
//     $CODEX_HOME/config.toml has [plugins."name@marketplace"] enabled = true. TOML is read with
//     github.com/pelletier/go-toml/v2 rather than by hand: Codex's file may write the table
//     inline or with dotted keys, and a hand-written reader would misread it.
//
// Where the format facts come from: Claude Code's plugin documentation (code.claude.com/docs:
// plugins reference and the plugin manifest reference, for plugin.json's fields, the standard
// layout, ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA}; plugin marketplaces, for
// marketplace.json's name, owner, metadata.pluginRoot and plugins[].source as a relative path
// or {source: github|url|git-subdir|npm, …}; installed_plugins.json and enabledPlugins as
// Claude Code writes them under ~/.claude). Codex's plugin documentation and source
// (developers.openai.com/codex, openai/codex: .codex-plugin/plugin.json with skills,
// mcpServers, apps and interface {displayName, shortDescription, developerName, websiteURL,
// composerIcon, logo, …}; .agents/plugins/marketplace.json with plugins[].source {source:
// "local", path}; the plugin cache under $CODEX_HOME/plugins/cache; config.toml's
// [plugins."name@marketplace"]; ${PLUGIN_ROOT} in plugin MCP configs and a relative cwd
// resolved against the plugin root, openai/codex discussion 28145 and codex-mcp's
// plugin_config.rs). A Codex .mcp.json is often the bare server map, without the mcpServers
// wrapper: config.ParseServers accepts both.
package plugin
