// Command mcpgo is a client built on github.com/mark3labs/mcp-go, for the tests that check
// that agentpool serve answers it. It runs a script of steps against the server given (-stdio:
// a command line it starts; -http: a streamable HTTP endpoint) and prints one JSON report per
// step on stdout as the step ends. It stops at the first step that fails, having printed its
// error, and exits 1.
//
//	mcpgo (-stdio 'COMMAND ARGS…' | -http URL) -steps '[{"op":"connect"},…]'
//
// The steps and their reports are those of the TypeScript twin, testdata/clientmatrix/client.mjs
// (see step and report below). mcp-go has no API for resources/subscribe (its 2026-07-28
// subscriptions/listen does not apply to a server of the initialize protocol), so subscribe is
// sent as a raw JSON-RPC request through the client's transport. mcp-go cancels a call by
// ending its context: over stdio it sends notifications/cancelled, over HTTP it drops the
// request.
//
// It is a module of its own so that the library's go.mod does not depend on mcp-go.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// step is one step of the script; op says which, the other fields are its arguments. The ops:
// connect (initialize; again after close: reconnect), close (over HTTP: DELETE), ping,
// list_tools, call, call_listed (each tool of the last list_tools), list_prompts, get_prompt,
// list_resources, read, list_templates, complete, set_level, subscribe, await_updated (a
// notifications/resources/updated for uri), write (a file) and await_line (a line in a file).
type step struct {
	Op       string         `json:"op"`
	Version  string         `json:"version,omitempty"`   // connect: the protocol version to ask for
	Name     string         `json:"name,omitempty"`      // call, get_prompt: tool or prompt; complete: the argument
	Args     map[string]any `json:"args,omitempty"`      // call, get_prompt
	Progress bool           `json:"progress,omitempty"`  // call: send a progress token
	CancelMs int            `json:"cancel_ms,omitempty"` // call: cancel it after this long
	URI      string         `json:"uri,omitempty"`       // read, subscribe, await_updated; complete: the template
	Value    string         `json:"value,omitempty"`     // complete: the partial value
	Level    string         `json:"level,omitempty"`     // set_level
	Path     string         `json:"path,omitempty"`      // write, await_line
	Text     string         `json:"text,omitempty"`      // write, await_line ("{last}": the text of the previous step)
	WaitMs   int            `json:"wait_ms,omitempty"`   // await_updated, await_line
	// call: cancel it once the file at path has the line ("{last}" as in Text), so that the
	// upstream has begun it
	CancelOn *struct{ Path, Line string } `json:"cancel_on,omitempty"`
	// call_listed: each listed tool's arguments, by the tool's own name (after its last "__")
	ArgsByTool map[string]map[string]any `json:"args_by_tool,omitempty"`
}

// report is what a step printed.
type report struct {
	Op              string    `json:"op"`
	Error           string    `json:"error,omitempty"`
	ProtocolVersion string    `json:"protocol_version,omitempty"`
	Server          string    `json:"server,omitempty"`
	Session         string    `json:"session,omitempty"`
	Names           []string  `json:"names,omitempty"` // what a list or completion returned
	Text            string    `json:"text,omitempty"`
	IsError         bool      `json:"is_error,omitempty"`
	Progress        []float64 `json:"progress,omitempty"`
	// call_listed: what each tool answered, "error: …" for a failed call or a tool error
	Results map[string]string `json:"results,omitempty"`
}

// runner holds the connection the steps use.
type runner struct {
	stdio, url string
	c          *client.Client
	updated    chan string // the URIs of notifications/resources/updated
	last       string      // the text of the last step
	listed     []string    // the tools of the last list_tools
	mu         sync.Mutex
	progress   []float64
}

func main() {
	stdio := flag.String("stdio", "", "the server's command line, split at spaces")
	url := flag.String("http", "", "the server's streamable HTTP endpoint")
	script := flag.String("steps", "[]", "the steps, a JSON array")
	timeout := flag.Duration("timeout", time.Minute, "how long each step may take")
	flag.Parse()
	var steps []step
	if err := json.Unmarshal([]byte(*script), &steps); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgo: -steps:", err)
		os.Exit(2)
	}
	r := &runner{stdio: *stdio, url: *url}
	code := 0
	for _, s := range steps {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		rep := report{Op: s.Op}
		if err := r.do(ctx, s, &rep); err != nil {
			rep.Error, code = err.Error(), 1
		}
		cancel()
		r.last = rep.Text
		out, _ := json.Marshal(rep)
		fmt.Println(string(out))
		if code != 0 {
			break
		}
	}
	if r.c != nil {
		r.c.Close()
	}
	os.Exit(code)
}

// CreateMessage answers sampling/createMessage with "sampled: " and the first message's text.
func (r *runner) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	text := ""
	if len(req.Messages) > 0 {
		if tc, ok := req.Messages[0].Content.(mcp.TextContent); ok {
			text = tc.Text
		}
	}
	return &mcp.CreateMessageResult{Model: "matrix",
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled: " + text)}}, nil
}

func (r *runner) notified(n mcp.JSONRPCNotification) {
	switch n.Method {
	case "notifications/progress":
		if p, ok := n.Params.AdditionalFields["progress"].(float64); ok {
			r.mu.Lock()
			r.progress = append(r.progress, p)
			r.mu.Unlock()
		}
	case "notifications/resources/updated":
		uri, _ := n.Params.AdditionalFields["uri"].(string)
		select {
		case r.updated <- uri:
		default:
		}
	}
}

func (r *runner) connect(ctx context.Context, s step, rep *report) error {
	var t transport.Interface
	var err error
	switch {
	case r.stdio != "":
		f := strings.Fields(r.stdio)
		t = transport.NewStdio(f[0], os.Environ(), f[1:]...)
	case r.url != "":
		// Continuous listening opens the GET stream, which carries resources/updated.
		t, err = transport.NewStreamableHTTP(r.url, transport.WithContinuousListening())
	default:
		err = errors.New("give -stdio or -http")
	}
	if err != nil {
		return err
	}
	r.c = client.NewClient(t, client.WithSamplingHandler(r))
	r.updated = make(chan string, 64)
	r.c.OnNotification(r.notified)
	// Not the step's context: the stdio transport's process lives as long as the one Start has.
	if err := r.c.Start(context.Background()); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-matrix", Version: "1"}
	init.Params.ProtocolVersion = s.Version
	res, err := r.c.Initialize(ctx, init)
	if err != nil {
		return err
	}
	rep.ProtocolVersion, rep.Server, rep.Session = res.ProtocolVersion, res.ServerInfo.Name, r.c.GetSessionId()
	return nil
}

func (r *runner) do(ctx context.Context, s step, rep *report) error {
	if s.Op != "connect" && s.Op != "write" && r.c == nil {
		return errors.New("not connected")
	}
	switch s.Op {
	case "connect":
		return r.connect(ctx, s, rep)
	case "close": // over HTTP, mcp-go's Close sends DELETE with the session id
		rep.Session = r.c.GetSessionId()
		err := r.c.Close()
		r.c = nil
		return err
	case "ping":
		return r.c.Ping(ctx)
	case "list_tools":
		res, err := r.c.ListTools(ctx, mcp.ListToolsRequest{})
		for _, t := range resultOr(res, err).Tools {
			rep.Names = append(rep.Names, t.Name)
		}
		r.listed = rep.Names
		return err
	case "call_listed":
		rep.Results = map[string]string{}
		for _, name := range r.listed {
			own := name
			if i := strings.LastIndex(name, "__"); i >= 0 {
				own = name[i+2:]
			}
			var one report
			err := r.call(ctx, step{Name: name, Args: s.ArgsByTool[own]}, &one)
			switch {
			case err != nil:
				rep.Results[name] = "error: " + err.Error()
			case one.IsError:
				rep.Results[name] = "error: " + one.Text
			default:
				rep.Results[name] = one.Text
			}
		}
		return nil
	case "call":
		return r.call(ctx, s, rep)
	case "list_prompts":
		res, err := r.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		for _, p := range resultOr(res, err).Prompts {
			rep.Names = append(rep.Names, p.Name)
		}
		return err
	case "get_prompt":
		req := mcp.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = s.Name, map[string]string{}
		for k, v := range s.Args {
			req.Params.Arguments[k] = fmt.Sprint(v)
		}
		res, err := r.c.GetPrompt(ctx, req)
		for _, m := range resultOr(res, err).Messages {
			if tc, ok := m.Content.(mcp.TextContent); ok {
				rep.Text += tc.Text
			}
		}
		return err
	case "list_resources":
		res, err := r.c.ListResources(ctx, mcp.ListResourcesRequest{})
		for _, x := range resultOr(res, err).Resources {
			rep.Names = append(rep.Names, x.URI)
		}
		return err
	case "read":
		req := mcp.ReadResourceRequest{}
		req.Params.URI = s.URI
		res, err := r.c.ReadResource(ctx, req)
		for _, c := range resultOr(res, err).Contents {
			if tc, ok := c.(mcp.TextResourceContents); ok {
				rep.Text += tc.Text
			}
		}
		return err
	case "list_templates":
		res, err := r.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		for _, x := range resultOr(res, err).ResourceTemplates {
			rep.Names = append(rep.Names, x.URITemplate.Raw())
		}
		return err
	case "complete":
		req := mcp.CompleteRequest{}
		req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: s.URI}
		req.Params.Argument.Name, req.Params.Argument.Value = s.Name, s.Value
		res, err := r.c.Complete(ctx, req)
		rep.Names = resultOr(res, err).Completion.Values
		return err
	case "set_level":
		req := mcp.SetLevelRequest{}
		req.Params.Level = mcp.LoggingLevel(s.Level)
		return r.c.SetLevel(ctx, req)
	case "subscribe":
		res, err := r.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
			ID: mcp.NewRequestId("subscribe-" + s.URI), Method: "resources/subscribe", Params: map[string]any{"uri": s.URI}})
		if err == nil && res.Error != nil {
			err = res.Error.AsError()
		}
		return err
	case "write":
		return os.WriteFile(s.Path, []byte(s.Text), 0o644)
	case "await_line": // the file at path has the line text ("{last}": the previous step's text)
		line := strings.ReplaceAll(s.Text, "{last}", r.last)
		ctx, cancel := context.WithTimeout(ctx, time.Duration(s.WaitMs)*time.Millisecond)
		defer cancel()
		if !hasLine(ctx, s.Path, line) {
			return fmt.Errorf("%s has no line %q within %d ms", s.Path, line, s.WaitMs)
		}
		return nil
	case "await_updated":
		timer := time.NewTimer(time.Duration(s.WaitMs) * time.Millisecond)
		defer timer.Stop()
		for {
			select {
			case uri := <-r.updated:
				if uri == s.URI {
					return nil
				}
			case <-timer.C:
				return fmt.Errorf("no notifications/resources/updated for %s within %d ms", s.URI, s.WaitMs)
			}
		}
	}
	return fmt.Errorf("unknown op %q", s.Op)
}

// call calls a tool: with a progress token if asked, and cancelled as s.CancelMs or s.CancelOn
// say (then the call's error is the report's text, and the step fails only if the call
// succeeded).
func (r *runner) call(ctx context.Context, s step, rep *report) error {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = s.Name, s.Args
	if s.Progress {
		req.Params.Meta = &mcp.Meta{ProgressToken: "matrix-progress"}
	}
	r.mu.Lock()
	r.progress = nil
	r.mu.Unlock()
	cancelled := s.CancelMs > 0 || s.CancelOn != nil
	if cancelled {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		if s.CancelMs > 0 {
			time.AfterFunc(time.Duration(s.CancelMs)*time.Millisecond, cancel)
		}
		if on := s.CancelOn; on != nil {
			go func() {
				if hasLine(ctx, on.Path, strings.ReplaceAll(on.Line, "{last}", r.last)) {
					cancel()
				}
			}()
		}
	}
	res, err := r.c.CallTool(ctx, req)
	r.mu.Lock()
	rep.Progress = r.progress
	r.mu.Unlock()
	if cancelled {
		if err == nil {
			return errors.New("the cancelled call returned a result")
		}
		rep.Text = err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	rep.IsError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			rep.Text += tc.Text
		}
	}
	return nil
}

// hasLine reports whether the file at path has line, waiting for it until ctx ends.
func hasLine(ctx context.Context, path, line string) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		data, _ := os.ReadFile(path)
		if slices.Contains(strings.Split(string(data), "\n"), line) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// resultOr returns res, or a zero result when err is set (so a step can range over it).
func resultOr[T any](res *T, err error) *T {
	if err != nil || res == nil {
		return new(T)
	}
	return res
}
