// Command mcpgo is a client built on github.com/mark3labs/mcp-go, for the tests that check
// that agentpool serve answers it: it connects to the server given (-stdio: a command line it
// starts; -http: a streamable HTTP endpoint), runs initialize, tools/list and one tools/call,
// and prints what it got as one JSON object on stdout. It exits 1, having printed the step
// that failed and why, when any step fails.
//
// It is a module of its own so that the library's go.mod does not depend on mcp-go.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// report is what the program prints.
type report struct {
	ProtocolVersion string   `json:"protocol_version,omitempty"`
	Server          string   `json:"server,omitempty"`
	Tools           []string `json:"tools,omitempty"`
	CallText        string   `json:"call_text,omitempty"`
	CallIsError     bool     `json:"call_is_error,omitempty"`
	Step            string   `json:"step,omitempty"` // the step that failed
	Error           string   `json:"error,omitempty"`
}

func main() {
	stdio := flag.String("stdio", "", "the server's command line, split at spaces")
	url := flag.String("http", "", "the server's streamable HTTP endpoint")
	tool := flag.String("call", "", "the tool to call")
	args := flag.String("args", "{}", "the call's arguments, a JSON object")
	version := flag.String("version", "", "the protocol version to ask for (default: the client's)")
	timeout := flag.Duration("timeout", time.Minute, "how long all steps may take")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var r report
	code := 0
	if err := run(ctx, &r, *stdio, *url, *version, *tool, *args); err != nil {
		r.Error = err.Error()
		code = 1
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	os.Exit(code)
}

func run(ctx context.Context, r *report, stdio, url, version, tool, args string) error {
	r.Step = "connect"
	var c *client.Client
	var err error
	switch {
	case stdio != "":
		f := strings.Fields(stdio)
		c, err = client.NewStdioMCPClient(f[0], os.Environ(), f[1:]...)
	case url != "":
		c, err = client.NewStreamableHttpClient(url)
		if err == nil {
			err = c.Start(ctx)
		}
	default:
		err = fmt.Errorf("give -stdio or -http")
	}
	if err != nil {
		return err
	}
	defer c.Close()

	r.Step = "initialize"
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-matrix", Version: "1"}
	init.Params.ProtocolVersion = version
	res, err := c.Initialize(ctx, init)
	if err != nil {
		return err
	}
	r.ProtocolVersion, r.Server = res.ProtocolVersion, res.ServerInfo.Name

	r.Step = "tools/list"
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	for _, t := range tools.Tools {
		r.Tools = append(r.Tools, t.Name)
	}

	if tool != "" {
		r.Step = "tools/call"
		var a map[string]any
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return fmt.Errorf("-args: %w", err)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, a
		cr, err := c.CallTool(ctx, req)
		if err != nil {
			return err
		}
		r.CallIsError = cr.IsError
		for _, ct := range cr.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				r.CallText += tc.Text
			}
		}
	}
	r.Step = ""
	return nil
}
