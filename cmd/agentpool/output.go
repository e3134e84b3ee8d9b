package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// output is the one output-flags helper: every command that prints data gets --json from it
// and prints either its JSON value or its table.
type output struct {
	json bool
}

// addOutputFlags adds --json to cmd and returns where its value lands.
func addOutputFlags(cmd *cobra.Command) *output {
	o := &output{}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return o
}

// print writes v as indented JSON with --json, and otherwise calls table with a tab writer
// (columns separated by tabs), flushed afterwards.
func (o *output) print(cmd *cobra.Command, v any, table func(w io.Writer)) error {
	out := cmd.OutOrStdout()
	if o.json {
		return printJSON(out, v)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	table(tw)
	return tw.Flush()
}

// printJSON writes v as indented JSON. <, > and & are kept as they are (not \u003c): the
// output is read by people and by JSON tools, never embedded in HTML, and instructions are
// full of <available-skills> and <skill_content> tags.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// warn prints a warning line on stderr.
func warn(cmd *cobra.Command, format string, args ...any) {
	fmt.Fprintf(cmd.ErrOrStderr(), "agentpool: warning: "+format+"\n", args...)
}

// oneLine shortens s to one line of at most n runes for tables.
func oneLine(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\r' {
			r = r[:i]
			break
		}
	}
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}
