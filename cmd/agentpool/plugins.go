package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/plugin"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/trust"
	"github.com/spf13/cobra"
)

// pluginStatePath is the user's plugin enable state ($XDG_CONFIG_HOME/agentpool/plugins.json),
// or "" when there is no config folder.
func pluginStatePath() string {
	dir, err := trust.ConfigDir()
	if err != nil {
		return ""
	}
	return plugin.StatePath(dir)
}

// newPluginsCmd is `agentpool plugins`: list, enable, disable.
func newPluginsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List, enable and disable plugins (Claude Code and Codex plugin folders and marketplaces)",
		Long: "A plugin is a folder with a .claude-plugin/plugin.json or .codex-plugin/plugin.json manifest holding\n" +
			"skills/, commands/ and an .mcp.json. Its skills and commands are named <plugin>:<name>, its servers'\n" +
			"tools <plugin>.<server>__<tool>. The config's plugins section names plugin folders and marketplaces;\n" +
			"enable and disable record your choice in $XDG_CONFIG_HOME/agentpool/plugins.json, which overrides the\n" +
			"config and which a running agentpool serve follows.",
	}
	cmd.AddCommand(newPluginsListCmd(opts), newPluginsSwitchCmd(opts, true), newPluginsSwitchCmd(opts, false))
	return cmd
}

// inspectPlugins reads the plugins the user's config (and a project's agentpool.yaml) name,
// starting nothing.
func inspectPlugins(opts *options) (*host.Plugins, *host.Project, error) {
	project, _ := os.Getwd()
	home := homeDir()
	user, projCfg, _, err := configs(opts, project, home)
	if err != nil {
		return nil, nil, err
	}
	ps := host.InspectPlugins(user, host.PluginOptions{State: pluginStatePath(), HomeDir: home,
		CodexHome: os.Getenv("CODEX_HOME"), Allowed: user.Extensions.AllowedCommands})
	if projCfg == nil {
		return ps, nil, nil
	}
	store, _ := trustStore()
	p, err := host.InspectProject(host.ProjectOptions{Dir: project, HomeDir: home, Config: projCfg, Store: store,
		Trust: opts.trustProject, MaxFolders: user.Skills.MaxFolders})
	if err != nil {
		return ps, p, err
	}
	ps.AddProject(p, user.Extensions.AllowedCommands) // as the host adds them
	return ps, p, nil
}

// pluginView is one plugin as `plugins list` shows it.
type pluginView struct {
	Name        string              `json:"name"`
	Enabled     bool                `json:"enabled"`
	Used        bool                `json:"used"`
	Untrusted   bool                `json:"untrusted,omitempty"`
	Source      string              `json:"source"`
	Format      string              `json:"format,omitempty"`
	Version     string              `json:"version,omitempty"`
	Description string              `json:"description,omitempty"`
	Author      *plugin.Author      `json:"author,omitempty"`
	Icons       []plugin.Icon       `json:"icons,omitempty"`
	Dir         string              `json:"dir"`
	Skills      []string            `json:"skills"`
	Commands    []string            `json:"commands"`
	Servers     []string            `json:"servers"`
	Agents      []string            `json:"agents,omitempty"`
	Hooks       []string            `json:"hooks,omitempty"`
	Problems    []string            `json:"problems,omitempty"`
	Unknown     []string            `json:"unknown_keys,omitempty"`
	Shadowed    []string            `json:"shadowed,omitempty"`
	Diagnostics []plugin.Diagnostic `json:"diagnostics,omitempty"`
}

// pluginsListing is the whole of `plugins list --json`.
type pluginsListing struct {
	Plugins      []pluginView        `json:"plugins"`
	NotInstalled []plugin.Entry      `json:"not_installed"`
	Diagnostics  []plugin.Diagnostic `json:"diagnostics,omitempty"`
	StateError   string              `json:"state_error,omitempty"`
}

func newPluginsListCmd(opts *options) *cobra.Command {
	var out *output
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List plugins: enabled, available in marketplaces, their skills, commands and servers, and problems",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ps, p, err := inspectPlugins(opts)
			if err != nil {
				return err
			}
			if p != nil {
				defer p.Close(context.Background())
			}
			confine := "" // an untrusted project's plugins are read only inside it, as the host reads them
			if p != nil && !p.Trusted() {
				confine = p.Dir
			}
			l := listing(ps, confine)
			return out.print(cmd, l, func(w io.Writer) { printPlugins(w, l) })
		},
	}
	out = addOutputFlags(cmd)
	return cmd
}

// listing gathers what `plugins list` shows: each plugin's skills and commands are read from
// its folders (nothing is started), its servers are the host's parse of its declarations. An
// untrusted project's plugins are read only inside confine, the project's folder.
func listing(ps *host.Plugins, confine string) pluginsListing {
	l := pluginsListing{Plugins: []pluginView{}, NotInstalled: []plugin.Entry{}, Diagnostics: ps.Catalog.Diagnostics}
	if ps.StateErr != nil {
		l.StateError = ps.StateErr.Error()
	}
	for _, p := range ps.List {
		v := pluginView{Name: p.Name, Enabled: p.Enabled, Used: p.Used(), Untrusted: p.Untrusted, Source: p.Source,
			Format: string(p.Format), Version: p.Version, Description: p.Description, Author: p.Author, Icons: p.Icons,
			Dir: p.Dir, Servers: p.Servers.Names(), Agents: p.Agents, Hooks: p.Hooks, Problems: p.Problems,
			Unknown: p.Unknown, Shadowed: p.Shadowed, Diagnostics: p.Diagnostics}
		in := ""
		if p.Untrusted {
			in = confine
		}
		v.Skills, v.Commands = pluginSkills(p, in), pluginCommands(p, in)
		if v.Servers == nil {
			v.Servers = []string{}
		}
		l.Plugins = append(l.Plugins, v)
	}
	for _, e := range ps.Catalog.Entries {
		if !e.Loaded {
			l.NotInstalled = append(l.NotInstalled, e)
		}
	}
	return l
}

// pluginSkills lists the qualified names of p's skills, as the skill manager names them, read
// only inside confine when it is set.
func pluginSkills(p *host.PluginInfo, confine string) []string {
	out := []string{}
	skills, _ := skill.Discover(p.SkillDirs, &skill.DiscoverOptions{Confine: confine})
	for _, s := range skills {
		out = append(out, p.Name+":"+s.Name)
	}
	slices.Sort(out)
	return out
}

// pluginCommands lists p's command files as slash commands, "/<plugin>:<name>", read only
// inside confine when it is set.
func pluginCommands(p *host.PluginInfo, confine string) []string {
	out := []string{}
	if len(p.CommandDirs) == 0 {
		return out
	}
	fs, err := command.NewFileSource(p.CommandDirs, &command.FileOptions{Namespace: p.Name, Confine: confine})
	if err != nil {
		return out
	}
	defer fs.Close(context.Background())
	cmds, _ := fs.ListCommands(context.Background())
	for _, c := range cmds {
		out = append(out, "/"+c.Name)
	}
	slices.Sort(out)
	return out
}

// printPlugins writes the listing for a terminal: a block per plugin, then what marketplaces
// offer that is not on disk, then problems not of one plugin.
func printPlugins(w io.Writer, l pluginsListing) {
	if len(l.Plugins) == 0 && len(l.NotInstalled) == 0 {
		fmt.Fprintln(w, "no plugins: name plugin folders or marketplaces under plugins: in your config (agentpool config schema shows the keys)")
	}
	for _, v := range l.Plugins {
		state := "disabled"
		switch {
		case v.Used:
			state = "enabled"
		case v.Enabled && v.Untrusted:
			state = "enabled, not used: the project is not trusted (agentpool trust)"
		}
		head := cell(v.Name)
		if v.Version != "" {
			head += " " + cell(v.Version)
		}
		fmt.Fprintf(w, "%s (%s; %s) %s\n", head, state, cell(v.Source), cell(v.Dir))
		if v.Description != "" {
			fmt.Fprintf(w, "  %s\n", cell(oneLine(v.Description, 100)))
		}
		printNames(w, "skills", v.Skills)
		printNames(w, "commands", v.Commands)
		printNames(w, "servers", v.Servers)
		printNames(w, "agents (listed, not loaded)", v.Agents)
		printNames(w, "hooks (listed, not run)", v.Hooks)
		for _, s := range v.Shadowed {
			fmt.Fprintf(w, "  ! server %s not used: your config has a server of that name\n", cell(s))
		}
		for _, p := range v.Problems {
			fmt.Fprintf(w, "  ! %s\n", cell(p))
		}
		for _, d := range v.Diagnostics {
			if d.Severity != plugin.SeverityDebug {
				fmt.Fprintf(w, "  ! %s\n", cell(d.String()))
			}
		}
	}
	if len(l.NotInstalled) > 0 {
		fmt.Fprintln(w, "in marketplaces, not installed:")
		for _, e := range l.NotInstalled {
			fmt.Fprintf(w, "  %s (marketplace %s, %s)", cell(e.Name), cell(e.Marketplace), cell(e.Source))
			if e.Fetch != "" {
				fmt.Fprintf(w, ": %s", cell(e.Fetch))
			}
			fmt.Fprintln(w)
		}
	}
	for _, d := range l.Diagnostics {
		if d.Severity != plugin.SeverityDebug {
			fmt.Fprintf(w, "! %s\n", cell(d.String()))
		}
	}
	if l.StateError != "" {
		fmt.Fprintf(w, "! %s\n", cell(l.StateError))
	}
}

// printNames writes "  what: a, b" when there are names.
func printNames(w io.Writer, what string, names []string) {
	if len(names) == 0 {
		return
	}
	cells := make([]string, len(names))
	for i, n := range names {
		cells[i] = cell(n)
	}
	fmt.Fprintf(w, "  %s: %s\n", what, strings.Join(cells, ", "))
}

// newPluginsSwitchCmd is `plugins enable NAME` (on) or `plugins disable NAME`.
func newPluginsSwitchCmd(opts *options, on bool) *cobra.Command {
	verb := map[bool]string{true: "enable", false: "disable"}[on]
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " a plugin (recorded in $XDG_CONFIG_HOME/agentpool/plugins.json; a running serve follows)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			state := pluginStatePath()
			if state == "" {
				return fmt.Errorf("plugins %s: no config folder to record it in ($XDG_CONFIG_HOME or $HOME)", verb)
			}
			ps, p, err := inspectPlugins(opts)
			if err != nil {
				return err
			}
			if p != nil {
				defer p.Close(context.Background())
			}
			var entry *plugin.Entry
			for i, e := range ps.Catalog.Entries {
				if e.Name == name {
					entry = &ps.Catalog.Entries[i]
				}
			}
			found := ps.Get(name)
			if found == nil && entry == nil {
				return fmt.Errorf("plugins %s: no plugin %q in your plugin folders, marketplaces or installed plugins (agentpool plugins list shows them)", verb, name)
			}
			w := cmd.OutOrStdout()
			if now := found != nil && found.Enabled || found == nil && entry.Enabled; now == on {
				// Recording it would change nothing now, and would pin the plugin against a
				// later change of the config.
				fmt.Fprintf(w, "plugin %s is already %sd\n", cell(name), verb)
				if on && found != nil && found.Untrusted {
					fmt.Fprintln(w, "it is a project's plugin: it is used once you trust the project (agentpool trust)")
				}
				return nil
			}
			if err := plugin.SetEnabled(state, name, on); err != nil {
				return fmt.Errorf("plugins %s: %w", verb, err)
			}
			fmt.Fprintf(w, "plugin %s %sd\n", cell(name), verb)
			switch {
			case on && found == nil && entry.Fetch != "":
				fmt.Fprintf(w, "it is not installed: %s, then name its folder under plugins.dirs\n", cell(entry.Fetch))
			case on && found != nil && found.Untrusted:
				fmt.Fprintln(w, "it is a project's plugin: it is used once you trust the project (agentpool trust)")
			}
			return nil
		},
	}
}

// reportPluginProblems says, once on stderr, what is wrong with the plugins section and the
// plugins in use: a problem of a plugin not in use is for `plugins list`, not for every command.
func reportPluginProblems(w io.Writer, ps *host.Plugins) {
	if ps == nil {
		return
	}
	if ps.StateErr != nil {
		fmt.Fprintf(w, "agentpool: plugins: %v\n", ps.StateErr)
	}
	// A problem of no loaded plugin (a plugins.dirs entry that is not there, a marketplace
	// file that does not parse, a name to enable that the marketplace does not list) would
	// otherwise go unsaid but by plugins list.
	for _, d := range ps.Catalog.Diagnostics {
		if d.Severity != plugin.SeverityDebug {
			fmt.Fprintf(w, "agentpool: plugins: %s\n", cell(d.String()))
		}
	}
	for _, p := range ps.Used() {
		for _, prob := range p.Problems {
			fmt.Fprintf(w, "agentpool: plugin %s: %s\n", cell(p.Name), cell(prob))
		}
		for _, d := range p.Diagnostics {
			if d.Severity == plugin.SeverityError {
				fmt.Fprintf(w, "agentpool: plugin %s: %s\n", cell(p.Name), cell(d.String()))
			}
		}
	}
}
