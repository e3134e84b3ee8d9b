package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

// compileOptions are the flags of `agentpool compile`.
type compileOptions struct {
	session, agent, prompt string
}

func newCompileCmd(opts *options) *cobra.Command {
	var co compileOptions
	cmd := &cobra.Command{
		Use:   "compile",
		Short: "Print what a scope sees: tools with their origin, instructions (static and dynamic), commands, skills, collisions",
		Long: "compile is the view an agent or a gateway client gets for a scope: every tool once, under its\n" +
			"final name, with the capability and origin that serve it; the system prompt's static part\n" +
			"(byte-stable while nothing changes) and dynamic part (always-active skills and, with\n" +
			"--prompt, the skills selected for that prompt); collisions between sources and how each\n" +
			"was resolved; and the capabilities left out, with why.",
		Args: cobra.NoArgs,
	}
	cmd.Flags().StringVar(&co.session, "session", "", "session id to open and compile for (default: the CLI's own)")
	cmd.Flags().StringVar(&co.agent, "agent", "", "agent name within the session")
	cmd.Flags().StringVar(&co.prompt, "prompt", "", "the turn's user prompt, to select skills for the dynamic instructions")
	out := addOutputFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ho := hostOpts{session: co.session, agent: co.agent}
		return withHost(opts, ho, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
			v, err := view.Compile(cmd.Context(), h.Registry, scope, &view.Options{Prompt: co.prompt})
			if err != nil {
				return err
			}
			if out.json {
				return printJSON(cmd.OutOrStdout(), v)
			}
			return printView(cmd, v)
		})(cmd, args)
	}
	return cmd
}

// printView prints a view for a person: one section per part, tools first, then what else a
// model or client is given, then what went wrong.
func printView(cmd *cobra.Command, v *view.View) error {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	section := func(title string, n int) { fmt.Fprintf(w, "\n## %s (%d)\n", title, n) }
	fmt.Fprintf(w, "# scope %s\n", v.Scope)
	section("tools", len(v.Tools))
	for _, t := range v.Tools {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", t.Name, t.Capability, t.Origin, t.Level)
	}
	section("commands", len(v.Commands))
	for _, c := range v.Commands {
		fmt.Fprintf(w, "/%s\t%s\t%s\n", c.Name, c.Capability, c.Origin)
	}
	section("skills", len(v.Skills))
	for _, s := range v.Skills {
		fmt.Fprintf(w, "%s\t%s\t%s\n", s.Name, s.Capability, s.Source)
	}
	section("collisions", len(v.Collisions))
	for _, c := range v.Collisions {
		fmt.Fprintln(w, c)
	}
	section("problems", len(v.Problems))
	for _, p := range v.Problems {
		fmt.Fprintln(w, p)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "\n## instructions: static (%d bytes)\n%s\n", len(v.Instructions.Static), strings.TrimSpace(v.Instructions.Static))
	fmt.Fprintf(out, "\n## instructions: dynamic (%d bytes)\n%s\n", len(v.Instructions.Dynamic), strings.TrimSpace(v.Instructions.Dynamic))
	return nil
}
