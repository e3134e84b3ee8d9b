package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/status"
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
			"--prompt, the skills selected for that prompt); the skill catalogue's budget, size and the\n" +
			"skills it cut (skills.catalogue_budget); collisions between sources and how each\n" +
			"was resolved; the tool names mapped to ^[a-zA-Z0-9_-]{1,64}$ (listed → served); and the\n" +
			"capabilities left out, with why.",
		Args: cobra.NoArgs,
	}
	cmd.Flags().StringVar(&co.session, "session", "", "session id to open and compile for (default: the CLI's own)")
	cmd.Flags().StringVar(&co.agent, "agent", "", "compile the view of this agent (config agents:) in the session")
	cmd.Flags().StringVar(&co.prompt, "prompt", "", "the turn's user prompt, to select skills for the dynamic instructions")
	out := addOutputFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ho := hostOpts{session: co.session, agent: co.agent}
		return withHost(opts, ho, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
			o := viewOptions(h, scope)
			o.Prompt = co.prompt
			v, err := view.Compile(cmd.Context(), h.Registry, scope, o)
			if err != nil {
				return err
			}
			lazy := mcpcap.LazyServers(h.Registry.Visible(scope))
			exp := exposure.NewReport(toolsConfig(h, scope.AgentName), v)
			boxes := status.HostSandboxes(h, scope)
			drifted := h.PinDriftLines()
			if out.json {
				reportProblems(cmd, opts, v)
				err = printJSON(cmd.OutOrStdout(), struct {
					*view.View
					LazyServers  []mcpcap.LazyServer `json:"lazy_servers"`
					ToolExposure exposure.Report     `json:"tool_exposure"`
					Sandboxes    []status.Sandbox    `json:"sandboxes"`
					PinsDrifted  []string            `json:"pins_drifted"`
				}{jsonView(v), orEmpty(lazy), exp, boxes, drifted})
			} else if err = printView(cmd, opts, v); err == nil { // its problems section reports them
				if err = printLazy(cmd, lazy); err == nil {
					fmt.Fprintf(cmd.OutOrStdout(), "\n## tool exposure\n")
					err = exp.WriteText(cmd.OutOrStdout())
				}
				printSandboxes(cmd.OutOrStdout(), boxes)
				fmt.Fprintf(cmd.OutOrStdout(), "\n## pins drifted (%d)\n%s", len(drifted), strings.Join(append(drifted, ""), "\n"))
			}
			if err != nil {
				return err
			}
			return partial(v)
		})(cmd, args)
	}
	return cmd
}

// toolsConfig is the tool exposure of agent's path (the pool's for ""): server.tools, under
// the agent's own tools key.
func toolsConfig(h *host.Host, agent string) exposure.Config {
	cfg := h.Current().Config
	if a, ok := cfg.Agents[agent]; ok && agent != "" {
		return a.Tools.Under(cfg.Server.Tools)
	}
	return cfg.Server.Tools
}

// printView prints a view for a person: one section per part, tools first, then what else a
// model or client is given, then what went wrong (one line per problem; whole with --verbose).
func printView(cmd *cobra.Command, opts *options, v *view.View) error {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	section := func(title string, n int) { fmt.Fprintf(w, "\n## %s (%d)\n", title, n) }
	fmt.Fprintf(w, "# scope %s\n", v.Scope)
	section("tools", len(v.Tools))
	for _, t := range v.Tools {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", cell(t.Name), cell(t.Capability), t.Origin, t.Level)
	}
	var mapped []string
	for _, t := range v.Tools {
		if t.Qualified != "" {
			mapped = append(mapped, cell(t.Qualified)+" → "+t.Name)
		}
	}
	section("names mapped to the tool name rule", len(mapped))
	for _, m := range mapped {
		fmt.Fprintln(w, m)
	}
	section("commands", len(v.Commands))
	for _, c := range v.Commands {
		fmt.Fprintf(w, "/%s\t%s\t%s\n", cell(c.Name), cell(c.Capability), c.Origin)
	}
	section("skills", len(v.Skills))
	for _, s := range v.Skills {
		fmt.Fprintf(w, "%s\t%s\t%s\n", cell(s.Name), cell(s.Capability), s.Source)
	}
	section("skill catalogue", len(v.Catalogues))
	for _, c := range v.Catalogues {
		fmt.Fprintln(w, cell(c.String()))
	}
	section("collisions", len(v.Collisions))
	for _, c := range v.Collisions {
		fmt.Fprintln(w, cell(c.String()))
	}
	section("hidden text", len(v.HiddenText))
	for _, h := range v.HiddenText {
		fmt.Fprintln(w, cell(h.Capability+": "+h.String()))
	}
	section("problems", len(v.Problems))
	for _, p := range v.Problems {
		if opts.verbose {
			fmt.Fprintln(w, cell(p.String()))
		} else {
			fmt.Fprintln(w, summary(p))
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "\n## instructions: static (%d bytes)\n%s\n", len(v.Instructions.Static), strings.TrimSpace(v.Instructions.Static))
	fmt.Fprintf(out, "\n## instructions: dynamic (%d bytes)\n%s\n", len(v.Instructions.Dynamic), strings.TrimSpace(v.Instructions.Dynamic))
	return nil
}

// printLazy prints where each lazy server's tools come from.
func printLazy(cmd *cobra.Command, lazy []mcpcap.LazyServer) error {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\n## lazy servers (%d)\n", len(lazy))
	for _, l := range lazy {
		fmt.Fprintf(w, "%s\t%s\n", cell(l.Name), l.Describe(time.Now()))
	}
	return w.Flush()
}

// printSandboxes prints each stdio server's sandbox and what the kernel applies of it, or why
// it refuses to start the server.
func printSandboxes(out io.Writer, boxes []status.Sandbox) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\n## sandboxes (%d)\n", len(boxes))
	for _, b := range boxes {
		switch {
		case b.Refused != "":
			fmt.Fprintf(w, "%s\t%s\trefused: %s\n", cell(b.Server), cell(b.Text), cell(b.Refused))
		case b.Applied != "":
			fmt.Fprintf(w, "%s\t%s\t%s\n", cell(b.Server), cell(b.Text), b.Applied)
		default:
			fmt.Fprintf(w, "%s\t%s\n", cell(b.Server), cell(b.Text))
		}
		if b.Dropped != "" {
			fmt.Fprintf(w, "  warning: %s\n", cell(b.Dropped))
		}
	}
	_ = w.Flush()
}

// jsonView is v for --json with every list [] rather than null when empty, as the list
// commands print them: a script reads one shape whatever the view holds.
func jsonView(v *view.View) *view.View {
	c := *v
	c.Tools = orEmpty(c.Tools)
	c.Commands = orEmpty(c.Commands)
	c.Skills = orEmpty(c.Skills)
	c.Resources = orEmpty(c.Resources)
	c.Templates = orEmpty(c.Templates)
	c.Collisions = orEmpty(c.Collisions)
	c.Problems = orEmpty(c.Problems)
	c.HiddenText = orEmpty(c.HiddenText)
	c.Catalogues = orEmpty(c.Catalogues)
	return &c
}

// orEmpty returns s, or an empty slice when s is nil.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
