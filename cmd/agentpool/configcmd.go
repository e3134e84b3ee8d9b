package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/trust"
	"github.com/spf13/cobra"
)

// newConfigCmd is `agentpool config`: check a config file, or print its JSON Schema. Neither
// starts anything: check only reads the files (config.Load).
func newConfigCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check the config, or print its JSON Schema",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check [FILE]",
		Short: "Print every error of the config (file:line:col: key: what) and exit 1, or what it would start",
		Long: "Check reads the config file the other commands would use (--config FILE; else ./agentpool.yaml,\n" +
			"the project's, and $XDG_CONFIG_HOME/agentpool/agentpool.yaml, yours), or FILE, with the JSON\n" +
			"files it imports. It prints every error and exits 1, or a summary of what the config would\n" +
			"start and exits 0. It starts nothing.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return configCheck(cmd.OutOrStdout(), checkedFiles(opts, args))
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "schema",
		Short: "Print a JSON Schema (draft 2020-12) of the config file, for an editor",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := config.SchemaJSON()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", data)
			return err
		},
	})
	return cmd
}

// checkedFile is a config file `config check` reads, and whose it is.
type checkedFile struct {
	path, whose string
	// optional files that do not exist are said to be missing, not an error.
	optional bool
}

// checkedFiles returns the files `config check` reads: FILE, else --config, else the ones
// configs (host.go) looks for, in its order: the project's ./agentpool.yaml (not in the home
// directory), then the user's.
func checkedFiles(opts *options, args []string) []checkedFile {
	if len(args) == 1 {
		return []checkedFile{{path: args[0], whose: "named"}}
	}
	if opts.configFile != "" {
		return []checkedFile{{path: opts.configFile, whose: "--config"}}
	}
	var files []checkedFile
	if project, err := os.Getwd(); err == nil && !sameDir(project, homeDir()) {
		if real, err := trust.RealPath(project); err == nil {
			if dir, err := trust.ConfigDir(); err != nil || !sameDir(real, dir) {
				files = append(files, checkedFile{path: filepath.Join(real, projectConfigName), optional: true,
					whose: "the project's: its servers start once the project is trusted"})
			}
		}
	}
	if dir, err := trust.ConfigDir(); err == nil {
		files = append(files, checkedFile{path: filepath.Join(dir, projectConfigName), whose: "yours", optional: true})
	}
	return files
}

// configCheck reads each file and prints, for each, every error or what it would start. It
// returns an exitError of code exitFailure when any file has an error.
func configCheck(w io.Writer, files []checkedFile) error {
	bad, read := 0, 0
	for _, f := range files {
		if _, err := os.Stat(f.path); f.optional && os.IsNotExist(err) {
			fmt.Fprintf(w, "%s (%s): not found\n", cell(f.path), f.whose)
			continue
		}
		read++
		cfg, err := config.Load(f.path)
		if err != nil {
			bad++
			fmt.Fprintf(w, "%s (%s): errors:\n", cell(f.path), f.whose)
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(w, "  %s\n", cell(line))
			}
			continue
		}
		fmt.Fprintf(w, "%s (%s): ok\n", cell(f.path), f.whose)
		printSummary(w, cfg)
	}
	if read == 0 {
		fmt.Fprintln(w, "no config file: agentpool runs with its defaults")
	}
	if bad > 0 {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("config check: %d of %d files have errors", bad, read)}
	}
	return nil
}

// printSummary says what cfg would start, indented under its file. Servers are said by type,
// command or redacted URL (their String), never with their arguments, env or headers, which
// may hold secrets.
func printSummary(w io.Writer, cfg *config.Config) {
	for _, warn := range cfg.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", cell(warn))
	}
	names := cfg.MCPServers.Names()
	fmt.Fprintf(w, "  mcp_servers: %d\n", len(names))
	for _, name := range names {
		s := cfg.MCPServers[name]
		scope := s.Scope
		if scope == "" {
			scope = "pool"
		}
		how := "scope " + scope
		if s.Lazy {
			how += ", lazy"
		}
		if src := cfg.Source(name); src != cfg.Path {
			how += ", from " + src
		}
		fmt.Fprintf(w, "    %s: %v; %s\n", cell(name), s, cell(how))
	}
	if len(cfg.Import) > 0 {
		fmt.Fprintf(w, "  import: %s\n", cell(strings.Join(cfg.Import, ", ")))
	}
	list := func(dirs []string) string {
		if len(dirs) == 0 {
			return "none configured (the default roots still apply)"
		}
		return strings.Join(dirs, ", ")
	}
	fmt.Fprintf(w, "  skills.dirs: %s\n", cell(list(cfg.Skills.Dirs)))
	fmt.Fprintf(w, "  commands.dirs: %s\n", cell(list(cfg.Commands.Dirs)))
	for _, name := range cfg.Agents.Names() {
		a := cfg.Agents[name]
		filter := ""
		if a.FiltersTools() {
			filter = ", tools filtered"
		}
		fmt.Fprintf(w, "  agent %s (/mcp/agents/%s): %d servers (%s), %d skill dirs%s\n", cell(name), cell(name),
			len(a.MCPServers), cell(strings.Join(a.MCPServers.Names(), ", ")), len(a.Skills.Dirs), filter)
	}
	s := cfg.Server
	addr := s.Addr
	if addr == "" {
		addr = config.DefaultServerAddr + " (default)"
	}
	token := "none"
	if s.Token != "" {
		token = "set"
	}
	fmt.Fprintf(w, "  server: addr %s, token %s, %d allowed origins\n", cell(addr), token, len(s.AllowedOrigins))
}
