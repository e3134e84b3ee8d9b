package main

import (
	"encoding/json"
	"fmt"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

func newWatchCmd(opts *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Print every change event (skills, commands, MCP tools, resources, prompts) until interrupted",
		Args:  cobra.NoArgs,
		RunE: withHost(opts, hostOpts{watch: true}, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
			ctx := cmd.Context()
			events := h.Registry.Changes(ctx, scope)
			// Compile the view once, as a client's first listing would: an upstream server is
			// connected only then, and one that is not connected sends no notifications.
			v, err := view.Compile(ctx, h.Registry, scope, nil)
			if err != nil {
				return err
			}
			reportProblems(cmd, opts, v)
			out := cmd.OutOrStdout()
			enc := json.NewEncoder(out)
			enc.SetEscapeHTML(false) // as printJSON: a URI's & stays &
			// Printed once the watchers run, so scripts know edits from now on are seen.
			if h.Current().Config.Skills.Watching(true) {
				fmt.Fprintln(cmd.ErrOrStderr(), "agentpool: watching; interrupt to stop")
			} else {
				fmt.Fprintln(cmd.ErrOrStderr(), "agentpool: watching MCP events only: skills and commands are not watched (skills.watch: false); interrupt to stop")
			}
			for ev := range events {
				if asJSON {
					if err := enc.Encode(ev); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(out, "%s %s %s\n", ev.Kind, ev.Capability, ev.SourceURI)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON ChangeEvent per line")
	return cmd
}
