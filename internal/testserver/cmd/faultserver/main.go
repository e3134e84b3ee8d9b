// Command faultserver is an MCP server for fault-injection tests. It serves a
// fixed set of tools, one resource and one prompt over stdio (or streamable
// HTTP and SSE with --http) and can be told to misbehave: crash, ignore
// SIGTERM, exit at start, never answer initialize, write to stderr.
//
// Tools: echo, pid, sleep, count, lookup, state_set, state_get, crash,
// add_tool, stderr, gate (gate.go), and for forwarding tests sample (asks its client to sample),
// roots (asks its client for its roots), log (logs at a level), progress
// (reports progress on the caller's token) and touch (sends resources/updated
// for a URI to the sessions subscribed to it; subscribe and unsubscribe requests
// are appended to the --log file as "subscribe <uri>", "unsubscribe <uri>"; a client's notifications/roots/list_changed as "roots-changed <pid>"). Resource: test://static/hello. Prompt: greet. Flags are
// listed by -help (--log, --ignore-sigterm, --exit-at-start, --hang-initialize,
// --stderr, --http, --stateless, --require-header, --call-delay, --count-delay,
// --linger, --skills, --extra-tool, --roots-at-start, --hidden-text-tool).
//
// With --skills the server declares the SEP-2640 extension
// "io.modelcontextprotocol/skills" and serves three skills: remote-review, pdf
// and acme/billing/refunds. Each file (SKILL.md and one more) is a skill://
// resource; refunds is served only through the template skill://acme/{+path}
// and is absent from resources/list. skills/list returns all three entries with
// sha256 digests and sizes; skills/get returns one entry by its SKILL.md URI, or
// error -32602 for any other URI.
// --extra-tool NAME adds a read-only echo-like tool from the start, so a restarted
// server can offer a different tool list.
//
// With --http ADDR the server listens on ADDR (tests use 127.0.0.1:0) and
// prints the streamable HTTP endpoint URL ("http://HOST:PORT/mcp") as line 1
// of stdout; the SSE endpoint is "/sse" on the same host. With
// --require-header NAME=VALUE every HTTP request lacking that header gets 401.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	logFile    = flag.String("log", "", "append sleep/count events to this file")
	ignoreTerm = flag.Bool("ignore-sigterm", false, "ignore SIGTERM")
	exitAt     = flag.Int("exit-at-start", -1, "print a message to stderr and exit with this code at once")
	hangInit   = flag.Bool("hang-initialize", false, "read stdin forever without answering anything")
	stderrMsg  = flag.String("stderr", "", "print this text to stderr at start")
	httpAddr   = flag.String("http", "", "serve streamable HTTP (/mcp) and SSE (/sse) on this address instead of stdio")
	stateless  = flag.Bool("stateless", false, "with --http: stateless streamable HTTP")
	reqHeader  = flag.String("require-header", "", "with --http: NAME=VALUE every request must carry")
	callDelay  = flag.Duration("call-delay", 0, "delay of the lookup tool")
	countDelay = flag.Duration("count-delay", 0, "delay of the count tool, after it counted and logged")
	linger     = flag.Duration("linger", 0, "stdio: keep running this long after stdin closes (with --ignore-sigterm only SIGKILL ends it early)")
	skills     = flag.Bool("skills", false, "declare the SEP-2640 skills extension and serve skills remote-review and pdf (skills/list, skills/get, skill:// resources)")
	extraTool  = flag.String("extra-tool", "", "also serve an echo-like read-only tool with this name from the start")
)

// Per-process state shared by every session of this process.
var (
	mu    sync.Mutex
	count int
	state string
	logMu sync.Mutex
)

func appendLog(line string) {
	if *logFile == "" {
		return
	}
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(*logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultserver: log: %v\n", err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func ptr[T any](v T) *T { return &v }

type textArg struct {
	Text string `json:"text" jsonschema:"the text"`
}
type msArg struct {
	Ms int `json:"ms" jsonschema:"milliseconds to sleep"`
}
type keyArg struct {
	Key string `json:"key" jsonschema:"the key to look up"`
}
type valueArg struct {
	Value string `json:"value" jsonschema:"the value to store"`
}
type nameArg struct {
	Name string `json:"name" jsonschema:"a name"`
}
type noArg struct{}

func echoTool(_ context.Context, _ *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
	return text(in.Text), nil, nil
}

func newServer() (*mcp.Server, error) {
	opts := &mcp.ServerOptions{SubscribeHandler: subscribed, UnsubscribeHandler: unsubscribed,
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) {
			appendLog(fmt.Sprintf("roots-changed %d", os.Getpid()))
		}}
	askAtStart(opts)
	if *skills {
		caps := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
		caps.AddExtension(skillsExtension, nil)
		opts.Capabilities = caps
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "faultserver", Version: "test"}, opts)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	pid := os.Getpid()

	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text argument unchanged.", Annotations: readOnly}, echoTool)
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's process id.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, noArg) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(pid)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleeps ms milliseconds, honouring cancellation; appends \"begin <pid>\" when it starts and \"cancelled <pid>\" or \"done <pid>\" when it ends to the --log file."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in msArg) (*mcp.CallToolResult, any, error) {
			appendLog(fmt.Sprintf("begin %d", pid))
			t := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
			defer t.Stop()
			select {
			case <-ctx.Done():
				appendLog(fmt.Sprintf("cancelled %d", pid))
				return nil, nil, ctx.Err()
			case <-t.C:
				appendLog(fmt.Sprintf("done %d", pid))
				return text("slept"), nil, nil
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "count", Description: "Not idempotent: appends \"count <pid>\" to the --log file and returns the number of count calls this process has executed (after --count-delay).",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArg) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			count++
			n := count
			mu.Unlock()
			appendLog(fmt.Sprintf("count %d", pid))
			if *countDelay > 0 {
				t := time.NewTimer(*countDelay)
				defer t.Stop()
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-t.C:
				}
			}
			return text(fmt.Sprint(n)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "lookup", Description: "Read-only and idempotent: returns \"value-of-<key>\" after --call-delay.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in keyArg) (*mcp.CallToolResult, any, error) {
			if *callDelay > 0 {
				t := time.NewTimer(*callDelay)
				defer t.Stop()
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-t.C:
				}
			}
			return text("value-of-" + in.Key), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "state_set", Description: "Stores value in this process's state (for isolation tests)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in valueArg) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			state = in.Value
			mu.Unlock()
			return text("ok"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "state_get", Description: "Returns this process's stored state (empty if none).", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, noArg) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			return text(state), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the process at once with code 3."},
		func(context.Context, *mcp.CallToolRequest, noArg) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hangup", Description: "Stdio: closes the server's stdout, so the client reads the end of the stream at once, then exits with code 3 after ms milliseconds (a process that is slow to die after its connection ended)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in msArg) (*mcp.CallToolResult, any, error) {
			_ = os.Stdout.Close()
			time.Sleep(time.Duration(in.Ms) * time.Millisecond)
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "garble", Description: "Stdio: writes a line that is not JSON to stdout, then returns \"garbled\" after ms milliseconds."},
		func(_ context.Context, _ *mcp.CallToolRequest, in msArg) (*mcp.CallToolResult, any, error) {
			_, _ = os.Stdout.WriteString("}{ not json\n")
			time.Sleep(time.Duration(in.Ms) * time.Millisecond)
			return text("garbled"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Adds an echo-like tool with the given name; the server then sends notifications/tools/list_changed."},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameArg) (*mcp.CallToolResult, any, error) {
			if in.Name == "" {
				return nil, nil, fmt.Errorf("add_tool: empty name")
			}
			mcp.AddTool(s, &mcp.Tool{Name: in.Name, Description: "Echo-like tool added at runtime.", Annotations: readOnly}, echoTool)
			return text("added " + in.Name), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "stderr", Description: "Writes text and a newline to the server's stderr."},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, in.Text)
			return text("ok"), nil, nil
		})

	addForwardingTools(s)

	s.AddResource(&mcp.Resource{URI: "test://static/hello", Name: "hello", MIMEType: "text/plain", Description: "A static text resource."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone by name.", Arguments: []*mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			name := req.Params.Arguments["name"]
			return &mcp.GetPromptResult{Description: "greeting", Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + name + "!"}}}}, nil
		})
	addGateTools(s)
	if *extraTool != "" {
		mcp.AddTool(s, &mcp.Tool{Name: *extraTool, Description: "Echo-like tool added by --extra-tool.", Annotations: readOnly}, echoTool)
	}
	if *hiddenTextTool != "" {
		addHiddenTextTool(s)
	}
	if *skills {
		if err := addSkills(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func main() {
	flag.Parse()
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *stderrMsg != "" {
		fmt.Fprintln(os.Stderr, *stderrMsg)
	}
	if *exitAt >= 0 {
		fmt.Fprintf(os.Stderr, "faultserver: exiting at start with code %d as asked\n", *exitAt)
		os.Exit(*exitAt)
	}
	if *hangInit {
		_, _ = io.Copy(io.Discard, os.Stdin)
		for { // a hung server does not notice its stdin closing either
			time.Sleep(time.Hour)
		}
	}
	s, err := newServer()
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultserver: %v\n", err)
		os.Exit(1)
	}
	if *httpAddr != "" {
		if err := serveHTTP(s); err != nil {
			fmt.Fprintf(os.Stderr, "faultserver: %v\n", err)
			os.Exit(1)
		}
		return
	}
	err = s.Run(context.Background(), &mcp.StdioTransport{})
	time.Sleep(*linger)
	if err != nil {
		fmt.Fprintf(os.Stderr, "faultserver: %v\n", err)
		os.Exit(1)
	}
}

func serveHTTP(s *mcp.Server) error {
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return err
	}
	get := func(*http.Request) *mcp.Server { return s }
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: *stateless}))
	mux.Handle("/sse", mcp.NewSSEHandler(get, nil))
	var h http.Handler = mux
	if *reqHeader != "" {
		name, value, ok := strings.Cut(*reqHeader, "=")
		if !ok {
			return fmt.Errorf("--require-header %q: want NAME=VALUE", *reqHeader)
		}
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(name) != value {
				http.Error(w, "missing or wrong header "+name, http.StatusUnauthorized)
				return
			}
			mux.ServeHTTP(w, r)
		})
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	return http.Serve(ln, h)
}
