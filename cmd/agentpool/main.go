// Command agentpool is the agentpool extension host: it serves local Agent Skills, MCP servers
// and slash commands as one view, and inspects that view from a shell.
//
// Each command is a thin constructor (newXCmd) over library logic: what a scope sees comes from
// package view, the host is built by openHost; the root wires every command explicitly.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// version is set by the linker (-ldflags "-X main.version=…") for releases.
var version = "dev"

// options are the global flags every subcommand sees.
type options struct {
	// configFile is --config: a YAML file (see package config).
	configFile string
	// skillsDirs are --skills-dir: skill roots of the highest precedence, in order.
	skillsDirs []string
	// noDefaultRoots is --no-default-roots: ignore project and user skill roots.
	noDefaultRoots bool
}

func newRootCmd() *cobra.Command {
	opts := &options{}
	root := &cobra.Command{
		Use:           "agentpool",
		Short:         "One extension host for Agent Skills, MCP servers and slash commands",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	pf := root.PersistentFlags()
	pf.StringVar(&opts.configFile, "config", "", "YAML config file")
	pf.StringArrayVar(&opts.skillsDirs, "skills-dir", nil, "skill root, highest precedence (repeatable)")
	pf.BoolVar(&opts.noDefaultRoots, "no-default-roots", false, "ignore the project and user skill roots")
	root.AddCommand(
		newVersionCmd(),
		newCompileCmd(opts),
		newSkillsCmd(opts),
		newCommandsCmd(opts),
		newRunCmd(opts),
		newToolsCmd(opts),
		newResourcesCmd(opts),
		newReadCmd(opts),
		newWatchCmd(opts),
	)
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "agentpool", version)
		},
	}
}

// exitError carries an exit code other than 1 and an optional message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRootCmd().ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exitError); ok {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "agentpool:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(os.Stderr, "agentpool:", err)
	return 1
}

func main() { os.Exit(run()) }
