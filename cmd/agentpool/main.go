// Command agentpool is the agentpool extension host: it serves local Agent Skills, MCP servers
// and slash commands as one view, and inspects that view from a shell.
//
// Each command is a thin constructor (newXCmd) over library logic: what a scope sees comes from
// package view, the host is built by openHost; the root wires every command explicitly.
//
// Configuration and trust (host.go, trust.go): --config FILE is the user's own config and
// nothing else is looked for; otherwise ./agentpool.yaml is the project's (used only once the
// project is trusted; in the home directory there is no project, and it is not read) and
// $XDG_CONFIG_HOME/agentpool/agentpool.yaml the user's. `agentpool trust [DIR]` prints every
// server the project declares and records the decision; `untrust` forgets it; --trust-project
// trusts for one run. A command that skipped an untrusted project's sources says so once on
// stderr, and `skills list` and `commands list` show them marked untrusted. `trust` always
// fingerprints the project's conventional folders, --no-default-roots or not, so that a run
// without that flag finds what was trusted.
//
// Failures are reported once (problems.go): a source that failed is one line on stderr naming
// it and its most useful cause, the libraries log only errors unless --verbose, and a list
// command that printed what it could exits 2 (partial), with the problems in its --json; an
// unknown command exits 2 too (usage). A
// signal exits 128 + its number (130 for Ctrl-C, 143 for SIGTERM), after the host was closed;
// except in `chat` (chat.go), where Ctrl-C ends the turn, not the program.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentpool/agentpool/sandbox"
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
	// trustProject is --trust-project: use the working directory's project for this run as
	// if trusted, without recording it.
	trustProject bool
	// verbose is --verbose: every failure with its whole error chain, and the libraries' logs
	// (debug and up) on stderr. Without it a failure is one line and only library errors log.
	verbose bool
	// logFormat is --log-format: text or json (logging.go).
	logFormat string
	// logLevel is --log-level: debug, info, warn or error; "" for errors only (debug with
	// --verbose).
	logLevel string
}

// Exit codes. A list command that printed what it could while a source failed exits
// exitPartial; a signal ends the CLI with 128 + the signal's number, as a shell reports it.
const (
	exitFailure    = 1   // the command failed (or a tool reported an error, skills validate failed)
	exitPartial    = 2   // a list command printed its list, but a source failed (see its problems)
	exitUsage      = 2   // an unknown command
	exitInterrupt  = 130 // SIGINT (Ctrl-C)
	exitTerminated = 143 // SIGTERM
)

func newRootCmd() *cobra.Command {
	opts := &options{}
	root := &cobra.Command{
		Use:           "agentpool",
		Short:         "One extension host for Agent Skills, MCP servers and slash commands",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if err := opts.checkLogFlags(); err != nil {
				return err
			}
			return opts.checkSkillsDirs()
		},
	}
	root.SetVersionTemplate("agentpool {{.Version}}\n")
	pf := root.PersistentFlags()
	pf.StringVar(&opts.configFile, "config", "", "YAML config file")
	pf.StringArrayVar(&opts.skillsDirs, "skills-dir", nil, "skill root, highest precedence (repeatable)")
	pf.BoolVar(&opts.noDefaultRoots, "no-default-roots", false, "ignore the project and user skill roots")
	pf.BoolVar(&opts.trustProject, "trust-project", false, "use the project's skills, commands and agentpool.yaml for this run without recording trust")
	pf.BoolVarP(&opts.verbose, "verbose", "v", false, "report failures with their whole error chain, and log what the libraries log")
	pf.StringVar(&opts.logFormat, "log-format", "text", "format of the logs on stderr: text or json")
	pf.StringVar(&opts.logLevel, "log-level", "", "log from this level up: debug, info, warn or error (default error; debug with --verbose)")
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
		newServeCmd(opts),
		newACPCmd(opts),
		newTrustCmd(opts),
		newUntrustCmd(opts),
		newChatCmd(opts),
		newConfigCmd(opts),
		newPluginsCmd(opts),
		newLoginCmd(opts),
		newPinsCmd(opts),
	)
	refuseUnknown(root)
	return root
}

// refuseUnknown makes cmd and every command under it that only groups others (agentpool,
// agentpool tools) refuse a word that names none of them with a usage error (exitUsage),
// naming the command probably meant; alone, such a command prints its help.
func refuseUnknown(cmd *cobra.Command) {
	if cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own, which SuggestionsFor leaves at 0
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
			}
			return &exitError{code: exitUsage, msg: msg + "; " + cmd.CommandPath() + " --help lists its commands"}
		}
		cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	for _, sub := range cmd.Commands() {
		refuseUnknown(sub)
	}
}

// checkSkillsDirs refuses a --skills-dir that is not a folder: named on the command line, it
// is meant, and a run without its skills would look like one with them.
func (o *options) checkSkillsDirs() error {
	for _, dir := range o.skillsDirs {
		if fi, err := os.Stat(dir); err != nil {
			return fmt.Errorf("--skills-dir %s: %w", dir, errors.Unwrap(err))
		} else if !fi.IsDir() {
			return fmt.Errorf("--skills-dir %s: not a folder", dir)
		}
	}
	return nil
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

// sameSignal is how close a second signal must follow the first to be the same event: timeout(1)
// and a kill of the process group deliver one interrupt twice, to the process and to its group.
const sameSignal = 500 * time.Millisecond

// run runs the CLI and returns its exit code: 0, exitFailure, the code of an *exitError, or
// 128 + the signal's number when SIGINT or SIGTERM ended it. The first signal cancels the
// command's context, so servers are stopped and the host closed; a second one, later than
// sameSignal, kills at once.
func run() int {
	stopProfile, writeMemProfile := startCPUProfile(), memProfiler()
	defer stopProfile()
	defer writeMemProfile()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var caught atomic.Value // os.Signal
	go handleSignals(ctx, sigs, func(sig os.Signal) { writeMemProfile(); caught.Store(sig); cancel() }, func(sig os.Signal) {
		stopProfile()
		os.Exit(128 + int(sig.(syscall.Signal))) // at once, servers or not
	})
	root := newRootCmd()
	err := root.ExecuteContext(ctx)
	// The last word goes where the command's own lines went: with --log-format json, a JSON
	// record (userOut), so that a log shipper reading stderr sees nothing but JSON.
	var errOut io.Writer = os.Stderr
	if format, _ := root.PersistentFlags().GetString("log-format"); format == "json" {
		errOut = userOut(&options{logFormat: format}, os.Stderr)
	}
	if sig, ok := caught.Load().(os.Signal); ok && !(err == nil && signalStops.Load()) {
		if sig == syscall.SIGTERM {
			return exitTerminated
		}
		return exitInterrupt
	}
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(errOut, "agentpool:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(errOut, "agentpool:", err)
	return exitFailure
}

// handleSignals calls first, on a goroutine of its own, with the first signal from sigs (unless
// ctx ends before one), and then now with any signal more than sameSignal later; one within
// sameSignal is the same event delivered twice and is dropped, however long first takes.
//
// A SIGINT while a command has taken it (takeInterrupts) is that command's, not a signal here.
func handleSignals(ctx context.Context, sigs <-chan os.Signal, first, now func(os.Signal)) {
	var sig os.Signal
	for sig == nil {
		select {
		case s := <-sigs:
			if !diverted(s) {
				sig = s
			}
		case <-ctx.Done():
			return
		}
	}
	at := time.Now()
	go first(sig)
	for sig := range sigs { // run returning ends the process, and this loop
		if !diverted(sig) && time.Since(at) > sameSignal {
			now(sig)
		}
	}
}

// interrupts is the channel of the command that took SIGINT from run's handler, if one has.
var interrupts atomic.Pointer[chan os.Signal]

// takeInterrupts gives each SIGINT to ch instead of run's handler (chat: Ctrl-C ends a turn, not
// the program) until release is called; SIGTERM stays run's. A SIGINT that finds ch full is
// dropped. The signal stays subscribed throughout: unlike signal.Reset and a Notify of the
// command's own, there is no moment at which SIGINT has its default action, killing the
// process where it stands.
func takeInterrupts(ch chan os.Signal) (release func()) {
	interrupts.Store(&ch)
	return func() { interrupts.CompareAndSwap(&ch, nil) }
}

// diverted hands sig to the command that took SIGINT, if it is one and one has, and reports
// whether it did.
func diverted(sig os.Signal) bool {
	ch := interrupts.Load()
	if ch == nil || sig != os.Interrupt {
		return false
	}
	select {
	case *ch <- sig:
	default:
	}
	return true
}

func main() {
	sandbox.Main() // a sandboxed server's start: applies its sandbox and becomes the server
	os.Exit(run())
}
