package main

import (
	"fmt"

	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/pin"
	"github.com/spf13/cobra"
)

// newPinsCmd is `agentpool pins list|approve|reset` over the user's pin store
// (pin.Store.RunHere): list and approve know which records are this folder's from the host
// a serve here would build.
func newPinsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "pins", Short: "What your MCP servers' tools said when first listed, and what changed since"}
	for _, sub := range []struct {
		use, short string
		args       cobra.PositionalArgs
	}{
		{"list [SERVER]", "Pinned definitions and drift, with word and schema diffs", cobra.MaximumNArgs(1)},
		{"approve SERVER [TOOL...]", "Approve what drifted (all of it when no tool is named)", cobra.MinimumNArgs(1)},
		{"reset SERVER", "Forget a server's pins: its next listing is pinned afresh", cobra.ExactArgs(1)},
	} {
		cmd.AddCommand(&cobra.Command{Use: sub.use, Short: sub.short, Args: sub.args, RunE: func(c *cobra.Command, args []string) error {
			st, err := host.PinStore()
			if err != nil {
				return err
			}
			var here pin.Here
			if c.Name() != "reset" {
				h, _, err := buildHost(c.Context(), opts, false)
				if err != nil {
					return err
				}
				defer closeHost(h)
				here = h.PinKeys
			}
			out, err := st.RunHere(here, c.Name(), args)
			fmt.Fprint(c.OutOrStdout(), out)
			return err
		}})
	}
	return cmd
}
