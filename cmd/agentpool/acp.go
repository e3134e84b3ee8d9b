package main

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"os"
	"strings"

	"github.com/agentpool/agentpool/agent/acp"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

// acpAgent is the agent name of an acp session without --agent. A configured agent's name
// starts with a letter or digit, so none is called this: the scope sees the pool's and the
// session's capabilities, and no agent's.
const acpAgent = "_acp"

// acpOpts are the flags of `agentpool acp`.
type acpOpts struct {
	modelFlags
	agent string
}

func newACPCmd(opts *options) *cobra.Command {
	o := &acpOpts{}
	cmd := &cobra.Command{
		Use:   "acp --model NAME [--base-url URL]",
		Short: "Serve an agent to an editor over the Agent Client Protocol (stdio)",
		Long: "Serve an agent over ACP on stdin/stdout, for editors such as Zed to run: each ACP session is a\n" +
			"session of the host with its own history, the view's commands are its slash commands, and\n" +
			"the MCP servers the editor passes join the session. The model is any OpenAI-compatible\n" +
			"chat-completions endpoint. Logs go to stderr; agentpool exits when the editor closes stdin.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return acpRun(cmd.Context(), opts, o, os.Stdin, os.Stdout)
		},
	}
	f := cmd.Flags()
	o.add(cmd) // without --base-url or $OPENAI_BASE_URL: OpenAI's API
	f.StringVar(&o.agent, "agent", "", "run this agent of the config's agents section (its view and servers)")
	return cmd
}

// acpRun builds the host with hot reload and serves ACP on in and out until the editor
// closes in or ctx ends, then closes the host, which ends every process it started.
func acpRun(ctx context.Context, opts *options, o *acpOpts, in io.Reader, out io.Writer) error {
	model, _, err := o.open("acp", false)
	if err != nil {
		return err
	}
	logger := cliLogger(opts)
	// The ACP SDK logs through slog.Default; stdout is the protocol's.
	slog.SetDefault(logger)
	h, _, err := buildHost(ctx, opts, true)
	if err != nil {
		return err
	}
	defer closeHost(h)
	so := acp.Options{
		Model: model, Registry: h.Registry, AgentName: acpAgent, Logger: logger, Version: version,
		Tools:        toolsConfig(h, o.agent),
		Permission:   func(from ext.Origin, tool string) string { return toolPermission(h, o.agent, from, tool) },
		OpenSession:  h.OpenSessionFunc(""),
		CloseSession: h.CloseSession,
		AddServer: func(ctx context.Context, id string, s acp.MCPServer) error {
			return h.AddSessionServer(ctx, id, s.Name, serverSpec(s))
		},
	}
	if o.agent != "" {
		a, err := h.Agent(o.agent)
		if err != nil {
			return err
		}
		so.AgentName = o.agent
		so.Cache = view.NewCache(h.Registry, &view.CacheOptions{Compile: agentViewOptions(a)})
		so.OpenSession = h.OpenSessionFunc(o.agent)
	}
	srv, err := acp.New(so)
	if err != nil {
		return err
	}
	signalStops.Store(true) // a signal is one way the editor stops its agent
	return srv.Serve(ctx, in, out)
}

// toolPermission is the permission key of the configured server a tool comes from, the
// agent's own (agent: "" for none) before the pool's ("" for any other tool), for the tool's
// name as the server lists it: without the prefix the server's prefix key gives its names.
func toolPermission(h *host.Host, agent string, o ext.Origin, tool string) string {
	name, ok := strings.CutPrefix(o.Location, "mcp://")
	if !ok {
		return ""
	}
	cfg := h.Current().Config
	srv, ok := cfg.Agents[agent].MCPServers[name]
	if !ok || agent == "" {
		srv = cfg.MCPServers[name]
	}
	if srv.Prefix != nil && *srv.Prefix != "" {
		tool = strings.TrimPrefix(strings.TrimPrefix(tool, name+"__"), *srv.Prefix) // a collision's rename adds "<server>__"
	}
	return srv.Permission.For(name, tool)
}

// serverSpec is an editor's server as a config entry would declare it.
func serverSpec(s acp.MCPServer) decl.Server {
	spec := decl.Server{Command: s.Command, Args: s.Args, Env: maps.Clone(s.Env), URL: s.URL, Headers: maps.Clone(s.Headers)}
	switch s.Type {
	case acp.TypeStdio:
		spec.Type = connpool.TypeStdio
	case acp.TypeHTTP:
		spec.Type = connpool.TypeStreamableHTTP
	case acp.TypeSSE:
		spec.Type = connpool.TypeSSE
	}
	return spec
}
