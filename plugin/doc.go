// Package plugin reads Claude Code and Codex plugins: plugin folders, the marketplaces that list
// them, and the plugins those two tools have installed. It reads and reports, and runs nothing;
// package host turns a Plugin's SkillDirs, CommandDirs and MCP into namespaced skills
// ("plugin:skill"), commands ("/plugin:command") and servers (each MCPSource through
// config.ParseServers with Plugin.Vars).
//
//	cat := plugin.Load(cfg.Plugins, plugin.Options{HomeDir: home})
//	for _, d := range cat.Diagnostics {
//		log.Print(d)
//	}
//	for _, p := range cat.Enabled() {
//		fmt.Println(p.Name, p.Dir, p.SkillDirs, p.CommandDirs)
//	}
//
// A plugin folder holds an optional manifest (.claude-plugin/plugin.json, else
// .codex-plugin/plugin.json) and the standard layout: skills/, commands/, agents/*.md,
// hooks/hooks.json and .mcp.json. The manifest's paths add to the standard layout's.
//
//   - A plugin's name is the marketplace entry's, else the manifest's, else the folder's, and
//     always valid (ValidName: kebab-case, at most MaxNameLength bytes). Load reads
//     plugins.dirs, the marketplaces, then the installed plugins (Claude Code, then Codex); a
//     later plugin of a taken name is left out with a diagnostic naming both folders, unless
//     the two come from two marketplaces (Plugin.Marketplace): the later is then named
//     "<name>-<marketplace>" (valid, shortened with a hash past MaxNameLength), with a
//     warning on it. plugins.disable and the State name it so.
//   - Enabled: a plugin of dirs; a marketplace's when enable names it (or holds "*"); an
//     installed one when Claude Code or Codex has it enabled. plugins.disable then turns off,
//     and the State file (SetEnabled; `agentpool plugins enable|disable`) overrides all.
//     Plugins not enabled are still read and listed.
//   - Listed, never run: agents, hooks, and manifest keys agentpool does not load. Unknown keys
//     are debug diagnostics, never errors.
//   - Containment: every path a plugin or marketplace names must stay inside its folder after
//     resolving symlinks, else it is an error diagnostic and not read.
//   - Bad input is never fatal: each problem is a Diagnostic naming the file and line; JSON
//     files are regular files of at most MaxFileSize. Nothing is fetched: sources not on disk
//     are Entries with Dir "" and a Fetch command.
//   - Plugin.Vars: CLAUDE_PLUGIN_ROOT and PLUGIN_ROOT are the plugin folder; CLAUDE_PLUGIN_DATA
//     and PLUGIN_DATA the data folder when there is one, absent otherwise.
//
// Where the format facts come from, and why: docs/design/plugin.md.
package plugin
