package gateway_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixture is a gateway over a real host: a skill root on disk (watched, with a short
// debounce) and the fault-injection test server as a session-scoped stdio upstream named
// "fault", served over real streamable HTTP on 127.0.0.1.
type fixture struct {
	h      *host.Host
	g      *gateway.Gateway
	url    string
	skills string // the skill root
}

// writeSkill writes skill name under root, with a second file notes.md. The folder is built
// aside and renamed into place, so a watcher sees one change.
func writeSkill(t *testing.T, root, name, body string) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: The " + name + " skill for tests.\n---\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(tmp, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "notes.md"), []byte("notes of "+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, name)); err != nil {
		t.Fatal(err)
	}
}

// newFixture starts the fixture with skill "greet"; set changes the gateway's options.
func newFixture(t *testing.T, set func(*gateway.Options)) *fixture {
	t.Helper()
	return newFixtureArgs(t, set)
}

// newFixtureArgs is newFixture with args for the fault server.
func newFixtureArgs(t *testing.T, set func(*gateway.Options), args ...string) *fixture {
	t.Helper()
	bin := testserver.Build(t)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	root := t.TempDir()
	writeSkill(t, root, "greet", "Say hello to $ARGUMENTS.")
	g, srv, h := serveHost(t, "skills:\n  debounce: 50ms\nmcp_servers:\n  fault: {command: "+bin+", args: ["+strings.Join(quoted, ", ")+"], scope: session}\n",
		host.Options{SkillDirs: []string{root}}, set)
	return &fixture{h: h, g: g, url: srv.URL, skills: root}
}

// serveHost builds a host from yaml (a config file in a temporary folder, which is also the
// host's project and home unless ho names them) and serves its gateway, with options set
// changes, over real HTTP on 127.0.0.1. Everything is closed when tb ends.
func serveHost(tb testing.TB, yaml string, ho host.Options, set func(*gateway.Options)) (*gateway.Gateway, *httptest.Server, *host.Host) {
	tb.Helper()
	g, h := buildGateway(tb, yaml, ho, set)
	srv := httptest.NewServer(g.Handler())
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv.CloseClientConnections() // a stuck client's stream, if a test failed
		if err := g.Close(ctx); err != nil {
			tb.Errorf("gateway close: %v", err)
		}
		srv.Close()
		if err := h.Close(ctx); err != nil {
			tb.Errorf("host close: %v", err)
		}
	})
	return g, srv, h
}

// buildGateway builds a host from yaml as serveHost does, and its gateway with options set
// changes; closing both is the caller's.
func buildGateway(tb testing.TB, yaml string, ho host.Options, set func(*gateway.Options)) (*gateway.Gateway, *host.Host) {
	tb.Helper()
	dir := tb.TempDir()
	cfg, err := config.Parse(filepath.Join(dir, "agentpool.yaml"), []byte(yaml))
	if err != nil {
		tb.Fatal(err)
	}
	ho.ProjectDir, ho.HomeDir = cmp.Or(ho.ProjectDir, dir), cmp.Or(ho.HomeDir, dir)
	h, err := host.Build(context.Background(), cfg, ho)
	if err != nil {
		tb.Fatal(err)
	}
	opts := gateway.Options{Registry: h.Registry, OpenSession: h.OpenSessionFunc(""), CloseSession: h.CloseSession}
	if set != nil {
		set(&opts)
	}
	g, err := gateway.New(opts)
	if err != nil {
		_ = h.Close(context.Background())
		tb.Fatal(err)
	}
	return g, h
}

// notes counts the list_changed notifications a client received.
type notes struct {
	tools, prompts, resources atomic.Int32
	any                       chan struct{} // a token per notification
}

// connect connects a go-sdk client over streamable HTTP; it is closed when the test ends.
func connect(t *testing.T, url string, hc *http.Client) (*mcp.ClientSession, *notes) {
	t.Helper()
	n := &notes{any: make(chan struct{}, 100)}
	bump := func(c *atomic.Int32) { c.Add(1); n.any <- struct{}{} }
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { bump(&n.tools) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { bump(&n.prompts) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { bump(&n.resources) },
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, n
}

// call calls a tool and returns its text.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("call %s: %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// post sends one raw JSON-RPC POST (sid may be empty) with the headers a streamable client
// sends, and returns the status, the headers and the JSON-RPC messages of the response (an
// SSE stream's data lines, or a JSON body).
func post(t *testing.T, url, sid, body string, header map[string]string) (int, http.Header, []map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msgs []map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err == nil {
					msgs = append(msgs, m)
				}
			}
		}
	} else {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		var m map[string]any
		if json.Unmarshal(buf.Bytes(), &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return resp.StatusCode, resp.Header, msgs
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// rpcError returns the error object of the first message, or nil.
func rpcError(msgs []map[string]any) map[string]any {
	if len(msgs) == 0 {
		return nil
	}
	e, _ := msgs[0]["error"].(map[string]any)
	return e
}
