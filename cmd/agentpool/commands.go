package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

func newCommandsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "commands", Short: "Slash commands from skills, command files and MCP prompts"}
	cmd.AddCommand(newCommandsListCmd(opts), newCommandsRunCmd(opts))
	return cmd
}

func newCommandsListCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every slash command, with collisions",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlags(cmd)
	cmd.RunE = withView(opts, func(cmd *cobra.Command, _ []string, h *host.Host, v *view.View) error {
		collisions := kindOf(v.Collisions, "command")
		diags := []command.Diagnostic{}
		st := h.Current()
		if st.Commands != nil {
			diags = append(diags, st.Commands.Diagnostics()...)
		}
		if st.Project != nil { // trusted or not, as the project's skills are
			diags = append(diags, st.Project.Commands.Diagnostics()...)
		}
		untrusted := untrustedCommands(cmd, h)
		err := out.print(cmd, map[string]any{"commands": v.Commands, "untrusted": untrusted, "collisions": collisions, "diagnostics": diags, "problems": problemsOf(v)}, func(w io.Writer) {
			fmt.Fprintln(w, "COMMAND\tSOURCE\tDESCRIPTION")
			for _, c := range v.Commands {
				name := "/" + c.Name
				if c.ArgumentHint != "" {
					name += " " + c.ArgumentHint
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", cell(name), c.Source, cell(oneLine(cmp.Or(c.Description, c.Title), 60)))
			}
			for _, c := range untrusted {
				name := "/" + c.Name
				if c.ArgumentHint != "" {
					name += " " + c.ArgumentHint
				}
				fmt.Fprintf(w, "%s\t%s\t%s\tuntrusted\n", cell(name), c.Source, cell(oneLine(cmp.Or(c.Description, c.Title), 60)))
			}
		})
		if err != nil || out.json {
			return err
		}
		for _, d := range diags {
			fmt.Fprintln(cmd.ErrOrStderr(), cell(d.String()))
		}
		for _, c := range collisions {
			fmt.Fprintln(cmd.ErrOrStderr(), "collision:", cell(c.String()))
		}
		return nil
	})
	return cmd
}

// untrustedCommand is a command of a project the user has not trusted: shown, in no view.
type untrustedCommand struct {
	ext.CommandEntry
	Untrusted bool `json:"untrusted"`
}

// untrustedCommands returns the commands of an untrusted project (its command files and its
// skills), never nil.
func untrustedCommands(cmd *cobra.Command, h *host.Host) []untrustedCommand {
	out := []untrustedCommand{}
	p := h.Current().Project
	if p == nil || p.Trusted() {
		return out
	}
	for _, src := range []ext.CommandResource{p.Commands, p.Skills} {
		cmds, _ := src.ListCommands(cmd.Context())
		for _, c := range cmds {
			out = append(out, untrustedCommand{CommandEntry: c, Untrusted: true})
		}
	}
	return out
}

// kindOf returns the collisions of one kind, never nil.
func kindOf(all []view.Collision, kind string) []view.Collision {
	out := []view.Collision{}
	for _, c := range all {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// newRunCmd is `run`, kept as an alias of `commands run`.
func newRunCmd(opts *options) *cobra.Command {
	cmd := newCommandsRunCmd(opts)
	cmd.Short = "Alias of commands run: " + cmd.Short
	return cmd
}

func newCommandsRunCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run '/name args…'",
		Short: "Expand a slash command and print the prompt it gives",
		Long: "Arguments are split shell-style ('a b' is one argument). The command may be named by its\n" +
			"plain name or by a qualified one (skill:<name>, file:<name>, <server>:<prompt>).",
		Args: cobra.MinimumNArgs(1),
	}
	out := addOutputFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		line := strings.Join(args, " ")
		if len(args) > 1 {
			// Several shell words: keep each as one argument.
			line = args[0] + " " + cmdline.Join(args[1:])
		}
		if !strings.HasPrefix(line, "/") {
			line = "/" + line
		}
		name, cmdArgs, _, err := cmdline.ParseLine(line)
		if err != nil {
			return err
		}
		if cmdArgs == nil {
			cmdArgs = []string{}
		}
		return withHost(opts, hostOpts{}, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
			v, err := findCommand(cmd, opts, h, scope, name)
			if err != nil {
				return err
			}
			res, err := v.GetCommand(cmd.Context(), &ext.CommandRequest{Name: name, Args: cmdArgs})
			if err != nil {
				return err
			}
			if out.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			fmt.Fprintln(cmd.OutOrStdout(), strings.TrimRight(res.Text(), "\n"))
			return nil
		})(cmd, args)
	}
	return cmd
}

// findCommand returns the view to expand the command called name in. A plain name that a
// local source (a skill, a command file) has is expanded without starting any upstream server;
// a qualified name (skill:x, <server>:<prompt>) goes to the full view, where an MCP prompt's
// name could be the same string. Problems of the full view are printed as warnings.
func findCommand(cmd *cobra.Command, opts *options, h *host.Host, scope ext.Scope, name string) (*view.View, error) {
	var v *view.View
	var err error
	if strings.Contains(name, ":") {
		v, err = view.Compile(cmd.Context(), h.Registry, scope, nil)
	} else {
		v, err = localFirst(cmd, h, scope, func(v *view.View) bool {
			_, ok := v.Command(name)
			return ok
		})
	}
	if err != nil {
		return nil, err
	}
	reportProblems(cmd, opts, v)
	return v, nil
}
