package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/skill"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newSkillsCmd) }

func newSkillsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "List and validate Agent Skills"}
	cmd.AddCommand(newSkillsListCmd(opts), newSkillsValidateCmd())
	return cmd
}

// skillJSON is one skill in `skills list --json`.
type skillJSON struct {
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	URI           string            `json:"uri"`
	Path          string            `json:"path"`
	Root          string            `json:"root"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	AllowedTools  []string          `json:"allowedTools,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	UserInvocable bool              `json:"userInvocable"`
	AlwaysActive  bool              `json:"alwaysActive,omitempty"`
	Servers       []string          `json:"servers,omitempty"`
}

func newSkillsListCmd(opts *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills found under the skill roots",
		Args:  cobra.NoArgs,
		RunE: withHost(opts, false, func(cmd *cobra.Command, _ []string, h *host.Host, _ ext.Scope) error {
			skills := h.Skills.Skills()
			diags := h.Skills.Diagnostics()
			out := cmd.OutOrStdout()
			if asJSON {
				list := make([]skillJSON, 0, len(skills))
				for _, s := range skills {
					j := skillJSON{
						Name: s.Name, Description: s.Description, URI: s.URI(), Path: s.Path, Root: s.Root,
						License: s.License, Compatibility: s.Compatibility, AllowedTools: s.AllowedTools,
						Metadata: s.Metadata, UserInvocable: s.UserInvocable, AlwaysActive: s.AlwaysActive,
					}
					for _, d := range s.Servers {
						j.Servers = append(j.Servers, d.Name)
					}
					list = append(list, j)
				}
				if diags == nil {
					diags = []skill.Diagnostic{}
				}
				return printJSON(out, map[string]any{"skills": list, "diagnostics": diags})
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tDESCRIPTION\tPATH")
			for _, s := range skills {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, oneLine(s.Description, 70), s.Path)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, d := range diags {
				fmt.Fprintln(cmd.ErrOrStderr(), d.String())
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newSkillsValidateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check skills against the specification's strict rules (exit 1 on any failure)",
		Long: "Each PATH is a skill folder, a SKILL.md file, or a folder of skills (every SKILL.md below it).\n" +
			"Every failure is printed with its path and line; the exit status is 1 when any rule fails.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			all := []skill.Diagnostic{}
			for _, p := range args {
				diags, err := skill.Validate(p)
				if err != nil {
					return err
				}
				all = append(all, diags...)
			}
			failed := len(all) > 0 // Validate returns only broken rules
			if asJSON {
				if err := printJSON(cmd.OutOrStdout(), map[string]any{"valid": !failed, "diagnostics": all}); err != nil {
					return err
				}
			} else {
				for _, d := range all {
					fmt.Fprintln(cmd.OutOrStdout(), d.String())
				}
			}
			if failed {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
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
