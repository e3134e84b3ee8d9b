package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newToolsCmd, newResourcesCmd) }

// visibleTool is one tool of the CLI's view and the capability that serves it.
type visibleTool struct {
	Name       string         `json:"name"` // as typed to `tools call`
	Capability string         `json:"capability"`
	Tool       ext.ToolEntry  `json:"tool"`
	cap        ext.Capability `json:"-"`
}

// visibleTools lists the tools of every visible capability, named as the capability lists them:
// the host names an upstream server's tools <server>__<tool> (ext.ToolName) unless its prefix
// says otherwise. A capability that fails to list is reported on warn and skipped: one broken
// server does not hide the others.
func visibleTools(cmd *cobra.Command, h *host.Host, scope ext.Scope) []visibleTool {
	var out []visibleTool
	for _, c := range h.Registry.Visible(scope) {
		tools, err := listToolsOf(cmd, c)
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "agentpool: warning: %s: %v\n", c.Name(), err)
			continue
		}
		for _, t := range tools {
			out = append(out, visibleTool{Name: t.Name, Capability: c.Name(), Tool: t, cap: c})
		}
	}
	return out
}

// listToolsOf asks an upstream server for its list (which reports connection errors) and any
// other capability for the tools it contributes.
func listToolsOf(cmd *cobra.Command, c ext.Capability) ([]ext.ToolEntry, error) {
	if tp, ok := c.(ext.ToolProvider); ok {
		return tp.Tools(cmd.Context())
	}
	return nil, nil
}

func newToolsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "List and call the tools of every skill and MCP server"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List every visible tool (upstream tools as <server>__<tool>)",
		Args:  cobra.NoArgs,
		RunE: withHost(opts, false, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
			tools := visibleTools(cmd, h, scope)
			if asJSON {
				if tools == nil {
					tools = []visibleTool{}
				}
				return printJSON(cmd.OutOrStdout(), map[string]any{"tools": tools})
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tDESCRIPTION")
			for _, t := range tools {
				fmt.Fprintf(tw, "%s\t%s\n", t.Name, oneLine(t.Tool.Description, 70))
			}
			return tw.Flush()
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	var callJSON bool
	call := &cobra.Command{
		Use:   "call NAME [JSON-ARGS]",
		Short: "Call a tool and print its result (exit 1 with the tool's error text when it reports an error)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw := json.RawMessage(`{}`)
			if len(args) == 2 {
				if !json.Valid([]byte(args[1])) {
					return fmt.Errorf("tool arguments are not valid JSON: %s", args[1])
				}
				raw = json.RawMessage(args[1])
			}
			h, scope, err := openHost(cmd.Context(), opts, false)
			if err != nil {
				return err
			}
			defer closeHost(h)
			c, err := findTool(cmd, h, scope, args[0])
			if err != nil {
				return err
			}
			res, err := c.CallTool(cmd.Context(), &ext.ToolCall{Name: args[0], Arguments: raw})
			if err != nil {
				return err
			}
			if callJSON {
				if err := printJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			} else {
				printResult(cmd, res)
			}
			if res.IsError {
				return &exitError{code: 1, msg: fmt.Sprintf("tool %s reported an error: %s", args[0], resultText(res))}
			}
			return nil
		},
	}
	call.Flags().BoolVar(&callJSON, "json", false, "print the whole result as JSON")
	cmd.AddCommand(list, call)
	return cmd
}

// findTool finds the capability that serves a name typed to `tools call`, connecting as few
// upstream servers as it can: the server a <server>__<tool> name names (the host's default
// naming) is asked alone, without listing; then every local capability; and only then the other
// upstream servers, whose prefix may be another or none (prefix: "").
func findTool(cmd *cobra.Command, h *host.Host, scope ext.Scope, name string) (ext.ToolProvider, error) {
	visible := h.Registry.Visible(scope)
	namespace, _, namespaced := strings.Cut(name, ext.ToolSep)
	for _, c := range visible {
		if tp, ok := c.(ext.ToolProvider); ok && namespaced && ext.OriginOf(c).Remote() && c.Name() == namespace {
			return tp, nil
		}
	}
	lists := func(c ext.Capability) bool {
		tools, err := listToolsOf(cmd, c)
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "agentpool: warning: %s: %v\n", c.Name(), err)
			return false
		}
		return slices.ContainsFunc(tools, func(t ext.ToolEntry) bool { return t.Name == name })
	}
	for _, remote := range []bool{false, true} {
		for _, c := range visible {
			if ext.OriginOf(c).Remote() == remote && lists(c) {
				return c.(ext.ToolProvider), nil
			}
		}
	}
	return nil, fmt.Errorf("tool %q: %w (see agentpool tools list)", name, ext.ErrNotFound)
}

// printResult prints text content as text and every other kind as one JSON line.
func printResult(cmd *cobra.Command, res *ext.ToolResult) {
	out := cmd.OutOrStdout()
	for _, c := range res.Content {
		if c.Type == ext.ContentText {
			fmt.Fprintln(out, c.Text)
			continue
		}
		b, _ := json.Marshal(c)
		fmt.Fprintln(out, string(b))
	}
	if len(res.StructuredContent) > 0 && len(res.Content) == 0 {
		fmt.Fprintln(out, string(res.StructuredContent))
	}
}

func resultText(res *ext.ToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if c.Type == ext.ContentText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, " ")
}

// resourceRow is one line of `resources list`.
type resourceRow struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Capability  string `json:"capability"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

func newResourcesCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "resources", Short: "Resources of every skill and MCP server"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List skill:// resources and every upstream resource",
		Args:  cobra.NoArgs,
		RunE: withHost(opts, false, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
			ctx := cmd.Context()
			rows := []resourceRow{}
			for _, c := range h.Registry.Visible(scope) {
				if sr, ok := c.(ext.SkillResource); ok {
					skills, err := sr.ListSkills(ctx)
					if err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "agentpool: warning: %s: %v\n", c.Name(), err)
					}
					for _, s := range skills {
						rows = append(rows, resourceRow{URI: s.URI, Name: s.Name, Capability: c.Name(), MIMEType: s.MIMEType, Description: s.Description})
					}
				}
				if rs, ok := c.(ext.ResourceSource); ok {
					res, err := rs.ListResources(ctx)
					if err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "agentpool: warning: %s: %v\n", c.Name(), err)
					}
					for _, r := range res {
						rows = append(rows, resourceRow{URI: r.URI, Name: r.Name, Capability: c.Name(), MIMEType: r.MIMEType, Description: r.Description})
					}
				}
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"resources": rows})
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "URI\tFROM\tNAME")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.URI, r.Capability, r.Name)
			}
			return tw.Flush()
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(list)
	return cmd
}
