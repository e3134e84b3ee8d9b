package main

import (
	"fmt"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newReadCmd) }

func newReadCmd(opts *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Print a resource: skill://<skill>/<file>, mcp://<server>/<uri>, or an upstream server's own URI",
		Args:  cobra.ExactArgs(1),
		RunE: withHost(opts, false, func(cmd *cobra.Command, args []string, h *host.Host, scope ext.Scope) error {
			contents, err := h.Registry.ResolveURI(cmd.Context(), args[0], scope)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return printJSON(out, map[string]any{"contents": contents})
			}
			for _, c := range contents {
				if c.Blob != nil {
					if _, err := out.Write(c.Blob); err != nil {
						return err
					}
					continue
				}
				fmt.Fprint(out, c.Text)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the contents as JSON (blobs base64)")
	return cmd
}
