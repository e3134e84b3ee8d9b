package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

func newToolsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "List and call the tools of every skill and MCP server"}
	cmd.AddCommand(newToolsListCmd(opts), newToolsCallCmd(opts))
	return cmd
}

func newToolsListCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every visible tool (upstream tools as <server>__<tool>)",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlags(cmd)
	cmd.RunE = withView(opts, func(cmd *cobra.Command, _ []string, _ *host.Host, v *view.View) error {
		collisions := kindOf(v.Collisions, "tool")
		err := out.print(cmd, map[string]any{"tools": v.Tools, "collisions": collisions, "problems": problemsOf(v)}, func(w io.Writer) {
			fmt.Fprintln(w, "TOOL\tDESCRIPTION")
			for _, t := range v.Tools {
				fmt.Fprintf(w, "%s\t%s\n", cell(t.Name), cell(oneLine(t.Entry.Description, 70)))
			}
		})
		if err != nil || out.json {
			return err
		}
		for _, c := range collisions {
			fmt.Fprintln(cmd.ErrOrStderr(), "collision:", cell(c.String()))
		}
		return nil
	})
	return cmd
}

func newToolsCallCmd(opts *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "call NAME [JSON-ARGS]",
		Short: "Call a tool and print its result (exit 1 with the tool's error text when it reports an error)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw := json.RawMessage(`{}`)
			if len(args) == 2 {
				var err error
				if raw, err = toolArgs(args[1]); err != nil {
					return err
				}
			}
			return withHost(opts, hostOpts{}, func(cmd *cobra.Command, _ []string, h *host.Host, scope ext.Scope) error {
				v, err := findTool(cmd, opts, h, scope, args[0])
				if err != nil {
					return err
				}
				res, err := v.CallTool(cmd.Context(), &ext.ToolCall{Name: args[0], Arguments: raw})
				if err != nil {
					return err
				}
				if asJSON {
					if err := printJSON(cmd.OutOrStdout(), res); err != nil {
						return err
					}
				} else if !res.IsError {
					printResult(cmd, res)
				}
				if res.IsError {
					// Without --json the error's text is said once, on stderr, and stdout stays
					// clean for whatever reads it.
					return &exitError{code: 1, msg: fmt.Sprintf("tool %s reported an error: %s", args[0], resultText(res))}
				}
				return nil
			})(cmd, args)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON")
	return cmd
}

// toolArgs checks a tool call's JSON-ARGS: MCP's tools/call takes its arguments as one JSON
// object, so an array, a string or null is refused here rather than by the server.
func toolArgs(arg string) (json.RawMessage, error) {
	if !json.Valid([]byte(arg)) {
		return nil, fmt.Errorf("tool arguments are not valid JSON: %s", arg)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(arg), &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("tool arguments must be a JSON object ({\"key\": value, …}): %s", arg)
	}
	return json.RawMessage(arg), nil
}

// findTool returns a view that has the tool called name. A local tool (load_skill) is found
// in a view of the local capabilities only, so calling it starts no upstream server.
func findTool(cmd *cobra.Command, opts *options, h *host.Host, scope ext.Scope, name string) (*view.View, error) {
	v, err := localFirst(cmd, h, scope, func(v *view.View) bool {
		_, ok := v.Tool(name)
		return ok
	})
	if err != nil {
		return nil, err
	}
	if _, ok := v.Tool(name); !ok {
		reportProblems(cmd, opts, v)
		return nil, fmt.Errorf("tool %q: %w (see agentpool tools list)", name, ext.ErrNotFound)
	}
	return v, nil
}

// localFirst compiles only the local capabilities (no upstream server is connected for that)
// and returns that view when found reports that it has what the command needs; otherwise it
// returns the full view, which connects every upstream server. A local entry wins over a
// remote one of the same name in the full view too (origin ranks first), so the route is the
// same either way. Problems of the full view are left to the caller.
func localFirst(cmd *cobra.Command, h *host.Host, scope ext.Scope, found func(*view.View) bool) (*view.View, error) {
	ctx := cmd.Context()
	local, err := view.Compile(ctx, h.Registry, scope, &view.Options{
		Include: func(r ext.Registration) bool { return !r.Origin.Remote() },
	})
	if err != nil {
		return nil, err
	}
	if found(local) {
		return local, nil
	}
	return view.Compile(ctx, h.Registry, scope, nil)
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

// resultText is the text of res's text content, joined by spaces; when it has none, each other
// content item as JSON, so an error result is never reported empty.
func resultText(res *ext.ToolResult) string {
	var parts, other []string
	for _, c := range res.Content {
		if c.Type == ext.ContentText {
			parts = append(parts, c.Text)
			continue
		}
		b, _ := json.Marshal(c)
		other = append(other, string(b))
	}
	if len(parts) == 0 {
		parts = other
	}
	return strings.Join(parts, " ")
}
