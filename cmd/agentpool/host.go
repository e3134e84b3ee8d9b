package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/spf13/cobra"
)

// cliSession is the session scope the CLI queries in, so session-scoped servers are visible too.
const cliSession = "cli"

// openHost loads --config (if any) and builds the host the way `agentpool serve` will, with the
// CLI's own session opened. watch turns on hot reload.
func openHost(ctx context.Context, opts *options, watch bool) (*host.Host, ext.Scope, error) {
	cfg := &config.Config{}
	if opts.configFile != "" {
		var err error
		if cfg, err = config.Load(opts.configFile); err != nil {
			return nil, ext.Scope{}, err
		}
	}
	project, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	h, err := host.Build(ctx, cfg, host.Options{
		SkillDirs:    opts.skillsDirs,
		DefaultRoots: !opts.noDefaultRoots,
		ProjectDir:   project,
		HomeDir:      home,
		Watch:        watch,
		Logger:       slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return nil, ext.Scope{}, err
	}
	scope := ext.Scope{SessionID: cliSession}
	if err := h.OpenSession(ctx, cliSession); err != nil {
		closeHost(h)
		return nil, ext.Scope{}, err
	}
	return h, scope, nil
}

// closeHost closes the host with a bound of its own, even when the command's context ended.
func closeHost(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = h.Close(ctx)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// withHost makes a cobra RunE that opens the host (watching when watch is set), runs fn with it
// and the CLI's scope, and closes it afterwards.
func withHost(opts *options, watch bool, fn func(cmd *cobra.Command, args []string, h *host.Host, scope ext.Scope) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		h, scope, err := openHost(cmd.Context(), opts, watch)
		if err != nil {
			return err
		}
		defer closeHost(h)
		return fn(cmd, args, h, scope)
	}
}
