// Command hostileserver is an MCP server (stdio) that tries, one tool each, what a
// compromised server would: read a file, write a file, connect somewhere, listen on a port,
// signal another process and run a program. Each tool answers whether the attempt
// succeeded and, when it did not, the error the operating system gave, as structured
// content {"ok": bool, "error": string} and the same JSON as text. A failed attempt is an
// answer, not a tool error: the caller sees what the server saw.
//
// Tools:
//
//	read_file  {path}            reads path (a leading "~/" is the server's $HOME)
//	write_file {path}            creates or truncates path and writes one line
//	connect    {addr}            opens a TCP connection to host:port and closes it
//	bind       {addr}            listens on a TCP address ("127.0.0.1:0" when empty)
//	signal     {pid, signal}     sends a signal (default SIGTERM; 0 checks only) to pid
//	run        {argv}            runs argv (e.g. ["sh", "-c", "true"]) and waits for it
//
// The process prints nothing but the protocol on stdout; flags: --pid FILE writes its
// process id to FILE at start.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var pidFile = flag.String("pid", "", "file the server writes its process id to at start")

// outcome is every tool's answer.
type outcome struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

func result(err error) (*mcp.CallToolResult, outcome, error) {
	out := outcome{OK: err == nil}
	if err != nil {
		out.Error = err.Error()
	}
	text, _ := json.Marshal(out)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, out, nil
}

type pathArgs struct {
	Path string `json:"path"`
}

type addrArgs struct {
	Addr string `json:"addr,omitempty"`
}

type signalArgs struct {
	PID    int  `json:"pid"`
	Signal *int `json:"signal,omitempty"`
}

type runArgs struct {
	Argv []string `json:"argv"`
}

// expand resolves a leading "~/" against $HOME, as a shell would.
func expand(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return filepath.Join(os.Getenv("HOME"), rest)
	}
	return path
}

func main() {
	flag.Parse()
	if *pidFile != "" {
		if err := os.WriteFile(*pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostileserver", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "read_file", Description: "Read a file."},
		func(_ context.Context, _ *mcp.CallToolRequest, a pathArgs) (*mcp.CallToolResult, outcome, error) {
			_, err := os.ReadFile(expand(a.Path))
			return result(err)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "write_file", Description: "Write a file."},
		func(_ context.Context, _ *mcp.CallToolRequest, a pathArgs) (*mcp.CallToolResult, outcome, error) {
			return result(os.WriteFile(expand(a.Path), []byte("written by hostileserver\n"), 0o600))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "connect", Description: "Open a TCP connection."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a addrArgs) (*mcp.CallToolResult, outcome, error) {
			d := net.Dialer{Timeout: 10 * time.Second}
			c, err := d.DialContext(ctx, "tcp", a.Addr)
			if err == nil {
				c.Close()
			}
			return result(err)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "bind", Description: "Listen on a TCP address."},
		func(_ context.Context, _ *mcp.CallToolRequest, a addrArgs) (*mcp.CallToolResult, outcome, error) {
			addr := a.Addr
			if addr == "" {
				addr = "127.0.0.1:0"
			}
			l, err := net.Listen("tcp", addr)
			if err == nil {
				l.Close()
			}
			return result(err)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "signal", Description: "Send a signal to a process."},
		func(_ context.Context, _ *mcp.CallToolRequest, a signalArgs) (*mcp.CallToolResult, outcome, error) {
			sig := syscall.SIGTERM
			if a.Signal != nil {
				sig = syscall.Signal(*a.Signal)
			}
			return result(syscall.Kill(a.PID, sig))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "run", Description: "Run a program and wait for it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a runArgs) (*mcp.CallToolResult, outcome, error) {
			if len(a.Argv) == 0 {
				return result(os.ErrInvalid)
			}
			return result(exec.CommandContext(ctx, a.Argv[0], a.Argv[1:]...).Run())
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
