package main

import (
	"fmt"
	"io"
	"os"

	"github.com/agentpool/agentpool/examples"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

func newSkillsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "List and validate Agent Skills"}
	cmd.AddCommand(newSkillsListCmd(opts), newSkillsValidateCmd())
	return cmd
}

// skillJSON is one skill in `skills list --json`: the view's entry, with the local details
// the skill manager knows for its own skills.
type skillJSON struct {
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	URI           string            `json:"uri"`
	Capability    string            `json:"capability"`
	Origin        ext.Origin        `json:"origin"`
	Path          string            `json:"path,omitempty"`
	Root          string            `json:"root,omitempty"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	AllowedTools  []string          `json:"allowedTools,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	UserInvocable bool              `json:"userInvocable"`
	AlwaysActive  bool              `json:"alwaysActive,omitempty"`
	Servers       []string          `json:"servers,omitempty"`
	// Untrusted marks a skill of a project the user has not trusted: shown, in no view.
	Untrusted bool `json:"untrusted,omitempty"`
}

func newSkillsListCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills of every source (skill folders and MCP servers), with diagnostics",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlags(cmd)
	cmd.RunE = withView(opts, func(cmd *cobra.Command, _ []string, h *host.Host, v *view.View) error {
		// The skill manager's own details, by capability and URI (a trusted project's skills
		// are among its own: it scans the project's roots too).
		local := map[string]*skill.Skill{}
		skills := h.Current().Skills
		for _, s := range skills.Skills() {
			local[skills.Name()+" "+s.URI()] = s
		}
		list := make([]skillJSON, 0, len(v.Skills))
		for _, e := range v.Skills {
			j := skillJSON{Name: e.Name, Description: e.Description, URI: e.URI, Capability: e.Capability,
				Origin: e.Source, Path: e.SkillEntry.Origin, UserInvocable: true}
			if s := local[e.Capability+" "+e.URI]; s != nil {
				j.Path, j.Root, j.License, j.Compatibility = s.Path, s.Root, s.License, s.Compatibility
				j.AllowedTools, j.Metadata, j.UserInvocable, j.AlwaysActive = s.AllowedTools, s.Metadata, s.UserInvocable, s.AlwaysActive
				for _, d := range s.Servers {
					j.Servers = append(j.Servers, d.Name)
				}
			}
			list = append(list, j)
		}
		if p := h.Current().Project; p != nil && !p.Trusted() {
			for _, s := range p.Skills.Skills() {
				j := skillJSON{Name: s.Name, Description: s.Description, URI: s.URI(), Capability: p.Skills.Name(),
					Origin: ext.Origin{Kind: ext.OriginProject, Location: p.Dir}, Path: s.Path, Root: s.Root,
					License: s.License, Compatibility: s.Compatibility, AllowedTools: s.AllowedTools, Metadata: s.Metadata,
					UserInvocable: s.UserInvocable, AlwaysActive: s.AlwaysActive, Untrusted: true}
				for _, d := range s.Servers {
					j.Servers = append(j.Servers, d.Name)
				}
				list = append(list, j)
			}
		}
		// The project's diagnostics too, trusted or not: a project skill that cannot be loaded
		// must not be missing without a word. A trusted project's skills are the skill
		// manager's too (it scans the project's roots), so only what it did not report is
		// added: a folder the project's agentpool.yaml names that does not exist, say.
		diags := append([]skill.Diagnostic{}, h.Current().Skills.Diagnostics()...) // never null in --json
		if p := h.Current().Project; p != nil {
			seen := map[skill.Diagnostic]bool{}
			for _, d := range diags {
				seen[d] = true
			}
			for _, d := range p.Skills.Diagnostics() {
				if !seen[d] {
					diags = append(diags, d)
				}
			}
		}
		err := out.print(cmd, map[string]any{"skills": list, "diagnostics": diags, "collisions": kindOf(v.Collisions, "skill"), "problems": problemsOf(v)}, func(w io.Writer) {
			fmt.Fprintln(w, "NAME\tDESCRIPTION\tPATH")
			for _, s := range list {
				mark := ""
				if s.Untrusted {
					mark = "\tuntrusted"
				}
				fmt.Fprintf(w, "%s\t%s\t%s%s\n", cell(s.Name), cell(oneLine(s.Description, 70)), cell(s.Path), mark)
			}
		})
		if err != nil || out.json {
			return err
		}
		for _, d := range diags {
			fmt.Fprintln(cmd.ErrOrStderr(), cell(d.String()))
		}
		for _, c := range kindOf(v.Collisions, "skill") {
			fmt.Fprintln(cmd.ErrOrStderr(), "collision:", cell(c.String()))
		}
		return nil
	})
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

// bundledExamples writes the bundled example skills to a new temporary folder when the command
// runs with neither --config nor --skills-dir, the default every command shares with serve,
// and returns it as bundled skill roots (any other skill of the same name outranks them), the
// skills' names and a cleanup that removes the folder. Otherwise it returns nothing, and a
// cleanup with nothing to do. The skill manager reads real folders, hence the copy.
func bundledExamples(opts *options) (dirs, names []string, cleanup func(), err error) {
	cleanup = func() {}
	if opts.configFile != "" || len(opts.skillsDirs) > 0 {
		return nil, nil, cleanup, nil
	}
	dir, err := os.MkdirTemp("", "agentpool-examples-")
	if err != nil {
		return nil, nil, cleanup, fmt.Errorf("the bundled example skills: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	names, err = examples.WriteSkills(dir)
	if err != nil {
		cleanup()
		return nil, nil, func() {}, err
	}
	return []string{dir}, names, cleanup, nil
}
