package main

import (
	"fmt"
	"io"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

func newResourcesCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "resources", Short: "Resources of every skill and MCP server"}
	cmd.AddCommand(newResourcesListCmd(opts), newResourcesReadCmd(opts))
	return cmd
}

func newResourcesListCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List skill:// resources and every upstream resource and template",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlags(cmd)
	cmd.RunE = withView(opts, func(cmd *cobra.Command, _ []string, _ *host.Host, v *view.View) error {
		return out.print(cmd, map[string]any{"resources": v.Resources, "templates": v.Templates, "problems": problemsOf(v)}, func(w io.Writer) {
			fmt.Fprintln(w, "URI\tFROM\tNAME")
			for _, r := range v.Resources {
				fmt.Fprintf(w, "%s\t%s\t%s\n", cell(r.URI), cell(r.Capability), cell(r.Name))
			}
			for _, t := range v.Templates {
				fmt.Fprintf(w, "%s\t%s\t%s\n", cell(t.URITemplate), cell(t.Capability), cell(t.Name))
			}
		})
	})
	return cmd
}

// newReadCmd is `read`, kept as an alias of `resources read`.
func newReadCmd(opts *options) *cobra.Command {
	cmd := newResourcesReadCmd(opts)
	cmd.Short = "Alias of resources read: " + cmd.Short
	return cmd
}

func newResourcesReadCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Print a resource: skill://<skill>/<file> or mcp://<server>/<uri> (a server's own scheme is known only once it is connected; an unknown scheme starts no server)",
		Args:  cobra.ExactArgs(1),
	}
	out := addOutputFlags(cmd)
	cmd.RunE = withHost(opts, hostOpts{}, func(cmd *cobra.Command, args []string, h *host.Host, scope ext.Scope) error {
		// Reads are routed by the registry at the scope: no view (and no server listing) needed.
		contents, err := h.Registry.ResolveURI(cmd.Context(), args[0], scope)
		if err != nil {
			return err
		}
		if out.json {
			return printJSON(cmd.OutOrStdout(), map[string]any{"contents": contents})
		}
		w := cmd.OutOrStdout()
		for _, c := range contents {
			if c.Blob != nil {
				if _, err := w.Write(c.Blob); err != nil {
					return err
				}
				continue
			}
			fmt.Fprint(w, c.Text)
		}
		return nil
	})
	return cmd
}
