package main

import (
	"context"
	"io"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeReloadsWhileServing runs serve in this process, through the command's own code
// path (flags, host, gateways, the followed config file), while the config file is rewritten
// again and again: from before serve has started, and between the sessions clients open,
// list and call through it. Under -race, nothing serve or a session reads of the host's state
// races a reload's write. Once the edits stop, the last config is what clients see.
func TestServeReloadsWhileServing(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	path := filepath.Join(dir, "agentpool.yaml")
	configs := []string{
		"mcp_servers:\n  a: {command: " + bin + "}\nagents:\n  x: {deny_tools: []}\n",
		"mcp_servers:\n  a: {command: " + bin + "}\n  b: {command: " + bin + ", scope: session}\nagents:\n  x: {deny_tools: [a__echo]}\n",
		"mcp_servers:\n  a: {command: " + bin + ", env: {N: '1'}}\nagents:\n  y: {}\nserver: {max_sessions: 50}\n",
	}
	writeFile(t, path, configs[0])
	t.Cleanup(func() { signal.Reset(syscall.SIGHUP) }) // serve ignores SIGHUP once it stops

	ctx, cancel := context.WithCancel(context.Background())
	root := newRootCmd()
	root.SetArgs([]string{"--no-default-roots", "--config", path, "serve", "--http", "127.0.0.1:0"})
	stderr := &syncBuffer{}
	root.SetErr(stderr)
	root.SetOut(io.Discard)
	served := make(chan error, 1)
	go func() { served <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	// Edits while serve starts: it reads its config once, whatever the file says meanwhile.
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:[1-9][0-9]*/mcp`)
	var url string
	for i := 0; url == ""; i++ {
		replaceFile(t, path, configs[i%len(configs)])
		url = endpoint.FindString(stderr.String())
		select {
		case err := <-served:
			t.Fatalf("serve ended before serving: %v\n%s", err, stderr.String())
		default:
		}
	}
	// Edits while clients open sessions, list and call: each round rewrites the file, then
	// a client of the pool and one of agent x (there while x is) use what they find.
	for i := range 12 {
		replaceFile(t, path, configs[i%len(configs)])
		for _, at := range []string{url, url + "/agents/x"} {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
				Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: at}, nil)
			if err != nil {
				continue // agent x's path while a reload has removed it
			}
			if tools, err := cs.ListTools(context.Background(), nil); err == nil {
				for _, tool := range tools.Tools {
					if strings.HasSuffix(tool.Name, "__echo") {
						// A call may meet its server being replaced: only races matter here.
						_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{"text": "x"}})
					}
				}
			}
			_ = cs.Close()
		}
	}

	replaceFile(t, path, configs[1])
	waitReload(t, "the last config served", func() bool {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			return false
		}
		defer cs.Close()
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			return false
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		return slices.Contains(names, "a__echo") && slices.Contains(names, "b__echo")
	})
}
