package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newCommandsCmd, newRunCmd) }

func newCommandsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "commands", Short: "Slash commands from skills, command files and MCP prompts"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List every slash command, with collisions",
		Args:  cobra.NoArgs,
		RunE: withHost(opts, false, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
			entries, collisions, err := command.List(cmd.Context(), h.Registry.CommandResources(scope))
			if err != nil {
				// One failing source does not hide the others: report and go on.
				fmt.Fprintln(cmd.ErrOrStderr(), "agentpool: warning:", err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return printJSON(out, map[string]any{"commands": entries, "collisions": collisions})
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "COMMAND\tSOURCE\tDESCRIPTION")
			for _, e := range entries {
				name := "/" + e.Name
				if e.ArgumentHint != "" {
					name += " " + e.ArgumentHint
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, e.Source, oneLine(e.Description, 60))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, c := range collisions {
				fmt.Fprintf(cmd.ErrOrStderr(), "collision: /%s from %s wins; the %s one is /%s\n",
					c.Name, c.Winner.Source, c.Loser.Source, c.Loser.QualifiedName)
			}
			return nil
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(list)
	return cmd
}

func newRunCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "run '/name args…'",
		Short: "Expand a slash command and print the prompt it gives",
		Long: "Arguments are split shell-style ('a b' is one argument). The command may be named by its\n" +
			"plain name or by a qualified one (skill:<name>, file:<name>, <server>:<prompt>).",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			line := strings.Join(args, " ")
			if len(args) > 1 {
				// Several shell words: keep each as one argument.
				line = args[0] + " " + command.Join(args[1:])
			}
			if !strings.HasPrefix(line, "/") {
				line = "/" + line
			}
			h, scope, err := openHost(cmd.Context(), opts, false)
			if err != nil {
				return err
			}
			defer closeHost(h)
			text, err := command.Run(cmd.Context(), h.Registry.CommandResources(scope), line)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), strings.TrimRight(text.Text(), "\n"))
			return nil
		},
	}
}
