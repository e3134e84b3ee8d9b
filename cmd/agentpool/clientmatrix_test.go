package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stepReport is what a client program of the matrix (internal/clientmatrix/mcpgo,
// testdata/clientmatrix/client.mjs) prints for each step of its script.
type stepReport struct {
	Op              string            `json:"op"`
	Error           string            `json:"error"`
	ProtocolVersion string            `json:"protocol_version"`
	Server          string            `json:"server"`
	Session         string            `json:"session"`
	Names           []string          `json:"names"`
	Text            string            `json:"text"`
	IsError         bool              `json:"is_error"`
	Progress        []float64         `json:"progress"`
	Results         map[string]string `json:"results"`
}

// scriptStep is one step of a client program's script: op and its arguments (see the step type
// of internal/clientmatrix/mcpgo) and what its report must hold (want returns what is wrong,
// or "").
type scriptStep struct {
	step map[string]any
	want func(r stepReport) string
}

// repoRoot returns the repository's root folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

var mcpgoOnce struct {
	sync.Once
	bin, err string
}

// mcpgoClient builds the mcp-go client program (a module of its own, so that the library does
// not depend on mcp-go) once per test binary and returns its path.
func mcpgoClient(t *testing.T) string {
	t.Helper()
	mcpgoOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentpool-mcpgo-")
		if err != nil {
			mcpgoOnce.err = err.Error()
			return
		}
		bin := filepath.Join(dir, "mcpgo")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = filepath.Join(repoRoot(t), "internal", "clientmatrix", "mcpgo")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			mcpgoOnce.err = "go build internal/clientmatrix/mcpgo: " + err.Error() + "\n" + string(out)
			return
		}
		mcpgoOnce.bin = bin
	})
	if mcpgoOnce.err != "" {
		t.Fatal(mcpgoOnce.err)
	}
	return mcpgoOnce.bin
}

// tsClient returns the command line prefix of the TypeScript SDK's client program.
func tsClient(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed (%v): run make test, which runs npm ci in testdata/npm", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: the TypeScript SDK client needs Node 20: %v", err)
	}
	return []string{node, filepath.Join(root, "testdata", "clientmatrix", "client.mjs")}
}

// runScript runs a client program (argv: the program and its --stdio or --http) with env and
// the script's steps, checks each step's report and returns the reports. A step that failed,
// or a report that is not what its step wants, fails t; the program stops at a failed step.
// It may run on a goroutine of its own: it never ends the test.
func runScript(t *testing.T, what string, env, argv []string, script []scriptStep) []stepReport {
	t.Helper()
	var steps []map[string]any
	for _, s := range script {
		steps = append(steps, s.step)
	}
	data, err := json.Marshal(steps)
	if err != nil {
		t.Error(err)
		return nil
	}
	cmd := exec.Command(argv[0], append(argv[1:], "--steps", string(data))...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var reports []stepReport
	for line := range strings.Lines(string(out)) {
		var r stepReport
		if jerr := json.Unmarshal([]byte(line), &r); jerr != nil {
			t.Errorf("%s: printed %q, not a step's report (%v); stderr:\n%s", what, line, jerr, tail(stderr.String(), 2000))
			return reports
		}
		reports = append(reports, r)
	}
	for i, r := range reports {
		if i >= len(script) || r.Op != script[i].step["op"] {
			t.Errorf("%s: report %d is %+v, not of step %v", what, i, r, script[min(i, len(script)-1)].step)
			return reports
		}
		if r.Error != "" {
			t.Errorf("%s: step %d %v failed: %s; stderr:\n%s", what, i, script[i].step, r.Error, tail(stderr.String(), 2000))
		} else if script[i].want != nil {
			if wrong := script[i].want(r); wrong != "" {
				t.Errorf("%s: step %d %v: %s", what, i, script[i].step, wrong)
			}
		}
	}
	if len(reports) < len(script) && !t.Failed() {
		t.Errorf("%s: %d of %d steps reported (%v); stderr:\n%s", what, len(reports), len(script), err, tail(stderr.String(), 2000))
	}
	return reports
}

// wantText wants a step's text to be text.
func wantText(text string) func(stepReport) string {
	return func(r stepReport) string {
		if r.Text != text || r.IsError {
			return fmt.Sprintf("answered %q (tool error %v), want %q", r.Text, r.IsError, text)
		}
		return ""
	}
}

// wantNames wants a step's names to include names.
func wantNames(names ...string) func(stepReport) string {
	return func(r stepReport) string {
		for _, n := range names {
			if !slices.Contains(r.Names, n) {
				return fmt.Sprintf("returned %q, want %q among them", r.Names, n)
			}
		}
		return ""
	}
}

// wantAgentpool wants a connect to have reached serve at version (any version if "").
func wantAgentpool(version string) func(stepReport) string {
	return func(r stepReport) string {
		if r.Server != "agentpool" || version != "" && r.ProtocolVersion != version {
			return fmt.Sprintf("server %q negotiated %q, want agentpool at %q", r.Server, r.ProtocolVersion, version)
		}
		return ""
	}
}

// TestClientMatrix: the clients people use — the go-sdk, mcp-go and the TypeScript SDK, each
// as released — complete initialize, tools/list and tools/call with a real serve, over
// streamable HTTP and over stdio; mcp-go, which probes with server/discover of the 2026-07-28
// protocol first, falls back to initialize, and asking for an older version negotiates it.
func TestClientMatrix(t *testing.T) {
	t.Parallel()
	fixture := serveFixture(t)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home)
	url, _ := startServeHTTP(t, home, fixture...)
	stdio := strings.Join(append(append([]string{"agentpool"}, fixture...), "serve", "--stdio"), " ")
	script := func(version string) []scriptStep {
		return []scriptStep{
			{map[string]any{"op": "connect", "version": version}, wantAgentpool(cmp.Or(version, "2025-11-25"))},
			{map[string]any{"op": "list_tools"}, func(r stepReport) string {
				for _, n := range r.Names {
					if !nameRule.MatchString(n) {
						return fmt.Sprintf("served %q, which does not match %s", n, nameRule)
					}
				}
				return wantNames("fault__echo", "load_skill")(r)
			}},
			{map[string]any{"op": "call", "name": "fault__echo", "args": map[string]any{"text": "matrix"}}, wantText("matrix")},
		}
	}

	mcpgo := mcpgoClient(t)
	for _, v := range []string{"", "2025-06-18", "2025-03-26", "2024-11-05"} {
		runScript(t, "mcp-go over HTTP asking "+cmp.Or(v, "its own"), env, []string{mcpgo, "--http", url}, script(v))
		runScript(t, "mcp-go over stdio asking "+cmp.Or(v, "its own"), env, []string{mcpgo, "--stdio", stdio}, script(v))
	}

	ts := tsClient(t)
	runScript(t, "TypeScript SDK over HTTP", env, append(ts, "--http", url), script(""))
	stdioScript := script("")
	stdioScript[0].want = wantAgentpool("") // the SDK's stdio transport does not tell the version
	runScript(t, "TypeScript SDK over stdio", env, append(ts, "--stdio", stdio), stdioScript)

	// The go-sdk's client asks for 2026-07-28 first (server/discover), as mcp-go does.
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-matrix", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("go-sdk over HTTP: %v", err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("go-sdk over HTTP negotiated %q", v)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__echo", Arguments: map[string]any{"text": "matrix"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "matrix" {
		t.Errorf("go-sdk over HTTP: fault__echo: %v %+v", err, res)
	}
	serve := exec.Command("agentpool", append(fixture, "serve", "--stdio")...)
	serve.Env = append(os.Environ(), "HOME="+home)
	cs2, err := client.Connect(ctx, &mcp.CommandTransport{Command: serve}, nil)
	if err != nil {
		t.Fatalf("go-sdk over stdio: %v", err)
	}
	defer cs2.Close()
	res, err = cs2.CallTool(ctx, &mcp.CallToolParams{Name: "fault__echo", Arguments: map[string]any{"text": "matrix"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "matrix" {
		t.Errorf("go-sdk over stdio: fault__echo: %v %+v", err, res)
	}
}

// matrixFixture is the config of the full client matrix: the skill wave and one skill per
// client run to subscribe to (sub-<label>), the two plugins of writeNamedPlugins (dotted and
// 80-character names), the fault server per session (its --log in log) and the everything
// server's long-running operation, which reports progress.
type matrixFixture struct {
	dir, log string
	args     []string // agentpool's arguments that select it
	env      []string
}

const waveSkill = "---\nname: wave\ndescription: Waves.\n---\nWave at $ARGUMENTS.\n"

func newMatrixFixture(t *testing.T, labels ...string) matrixFixture {
	t.Helper()
	dir := t.TempDir()
	bin := testserver.Build(t)
	cfg := writeNamedPlugins(t, dir, bin)
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "fault.log")
	writeFile(t, cfg, string(text)+`mcp_servers:
  fault:
    command: `+bin+`
    args: [--log, `+log+`]
    scope: session
    allow_tools: [echo, pid, sleep, sample, state_set, state_get]
  everything:
    command: `+everythingServer(t)+`
    allow_tools: [trigger-long-running-operation]
`)
	writeFile(t, filepath.Join(dir, "skills", "wave", "SKILL.md"), waveSkill)
	for _, l := range labels {
		writeFile(t, filepath.Join(dir, "skills", "sub-"+l, "SKILL.md"), "---\nname: sub-"+l+"\ndescription: Subscribed to.\n---\nAs written.\n")
	}
	return matrixFixture{dir: dir, log: log, env: pluginEnv(dir),
		args: []string{"--no-default-roots", "--skills-dir", filepath.Join(dir, "skills"), "--config", cfg}}
}

// sessionFacts are what a full script's steps tell the test after the run.
type sessionFacts struct {
	first, closed string // the session ids before close (HTTP)
	reconnected   string // the session id after reconnecting (HTTP)
}

// fullScript is every step of the matrix for one client run labelled label: each MCP method a
// client uses, subscribe and resources/updated after the script edits its skill, progress and
// sampling through upstreams, a call of every tool served, close, reconnect and, in the new
// session, a call cancelled by the client that the upstream sees cancelled. Its
// state_set/state_get tell whether a concurrent session shares its server.
func fullScript(fx matrixFixture, label string, facts *sessionFacts) []scriptStep {
	sub := "skill://sub-" + label + "/SKILL.md"
	edited := "---\nname: sub-" + label + "\ndescription: Subscribed to.\n---\nEdited.\n"
	args := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	step := func(op string, kv ...any) map[string]any { return args(append([]any{"op", op}, kv...)...) }
	byTool := map[string]any{
		"echo": args("text", label), "read_graph": args("text", label), "lookup": args("key", label),
		"sleep": args("ms", 1), "sample": args("text", label), "state_set": args("value", label),
		"load_skill":                     args("name", "wave"),
		"trigger-long-running-operation": args("duration", 0.1, "steps", 1),
	}
	return []scriptStep{
		{step("connect"), func(r stepReport) string { facts.first = r.Session; return wantAgentpool("")(r) }},
		{step("ping"), nil},
		{step("list_tools"), wantServedNames},
		{step("call", "name", "fault__echo", "args", args("text", label)), wantText(label)},
		{step("call", "name", "fault__state_set", "args", args("value", label)), nil},
		{step("list_prompts"), wantNames("wave", "sub-"+label)},
		{step("get_prompt", "name", "wave", "args", args("arguments", label)), wantText("Wave at " + label + ".")},
		{step("list_resources"), wantNames("skill://wave/SKILL.md", sub)},
		{step("read", "uri", "skill://wave"), wantText(waveSkill)},
		{step("read", "uri", "skill://wave/SKILL.md"), wantText(waveSkill)},
		{step("list_templates"), wantNames("skill://{+path}")},
		{step("complete", "uri", "skill://{+path}", "name", "path", "value", "wa"), wantNames("wave/SKILL.md")},
		{step("set_level", "level", "debug"), nil},
		// Progress every 0.5 s, so that a busy client reads each on its own (see wantProgress).
		{step("call", "name", "everything__trigger-long-running-operation", "args", args("duration", 1.5, "steps", 3), "progress", true), wantProgress(3)},
		{step("call", "name", "fault__sample", "args", args("text", label)), wantText("sampled: " + label)},
		{step("subscribe", "uri", sub), nil},
		{step("write", "path", filepath.Join(fx.dir, "skills", "sub-"+label, "SKILL.md"), "text", edited), nil},
		{step("await_updated", "uri", sub, "wait_ms", 20000), nil},
		{step("read", "uri", sub), wantText(edited)},
		{step("call", "name", "fault__state_get"), wantText(label)},
		{step("list_tools"), nil},
		{step("call_listed", "args_by_tool", byTool), wantAllCallable(label)},
		{step("close"), func(r stepReport) string { facts.closed = r.Session; return "" }},
		{step("connect"), func(r stepReport) string { facts.reconnected = r.Session; return wantAgentpool("")(r) }},
		{step("call", "name", "fault__echo", "args", args("text", "again")), wantText("again")},
		// In the new session, a call cancelled once the fault server has begun it ("{last}": the
		// pid the step before answered).
		{step("call", "name", "fault__pid"), nil},
		{step("call", "name", "fault__sleep", "args", args("ms", 30000), "cancel_on", args("path", fx.log, "line", "begin {last}")), nil},
		{step("call", "name", "fault__pid"), nil},
		{step("await_line", "path", fx.log, "text", "cancelled {last}", "wait_ms", 10000), nil},
	}
}

// wantServedNames wants every tool name served to match nameRule, and the fixture's tools.
func wantServedNames(r stepReport) string {
	var wrong []string
	plugins := 0
	for _, n := range r.Names {
		if !nameRule.MatchString(n) {
			wrong = append(wrong, n)
		}
		if !strings.HasPrefix(n, "fault__") && !strings.HasPrefix(n, "everything__") && n != "load_skill" {
			plugins++
		}
	}
	if len(wrong) > 0 {
		return fmt.Sprintf("served %q, which do not match %s", wrong, nameRule)
	}
	if plugins != 2*len(namedPluginTools) {
		return fmt.Sprintf("served %q: %d plugin tools, want %d", r.Names, plugins, 2*len(namedPluginTools))
	}
	return wantNames("fault__echo", "load_skill", "everything__trigger-long-running-operation", "deploy_api_v2__read_graph")(r)
}

// wantProgress wants progress notifications 1, 2, … in increasing order, at most total. The
// last may be missing: the TypeScript SDK handles a notification after a result read with it.
func wantProgress(total float64) func(stepReport) string {
	return func(r stepReport) string {
		p := r.Progress
		ok := len(p) > 0 && p[0] == 1 && p[len(p)-1] <= total
		for i := 1; ok && i < len(p); i++ {
			ok = p[i] > p[i-1]
		}
		if !ok {
			return fmt.Sprintf("progress %v, want 1 … %v increasing", p, total)
		}
		return ""
	}
}

// wantAllCallable wants every tool listed to have answered under its served name, and the
// echo-like ones to have answered label.
func wantAllCallable(label string) func(stepReport) string {
	return func(r stepReport) string {
		if len(r.Results) != 1+6+1+2*len(namedPluginTools) { // load_skill, fault, everything, plugins
			return fmt.Sprintf("called %d tools: %v", len(r.Results), r.Results)
		}
		for name, text := range r.Results {
			own := name
			if i := strings.LastIndex(name, "__"); i >= 0 {
				own = name[i+2:]
			}
			want := map[string]string{"echo": label, "read_graph": label, "lookup": "value-of-" + label, "sample": "sampled: " + label}[own]
			if strings.HasPrefix(text, "error: ") || want != "" && text != want {
				return fmt.Sprintf("%s answered %q, want %q", name, text, cmp.Or(want, "no error"))
			}
		}
		return ""
	}
}

// TestClientMatrixFull runs fullScript with mcp-go and the TypeScript SDK over streamable HTTP
// (one serve, two concurrent sessions per client) and over `serve --stdio`; over HTTP the
// closed session is then gone (DELETE) and the reconnected one is new.
func TestClientMatrixFull(t *testing.T) {
	t.Parallel()
	clients := []struct {
		name string
		argv []string
	}{{"mcp-go", []string{mcpgoClient(t)}}, {"ts", tsClient(t)}}
	var labels []string
	for _, c := range clients {
		labels = append(labels, c.name+"-stdio", c.name+"-http-1", c.name+"-http-2")
	}
	fx := newMatrixFixture(t, labels...)
	cmd := exec.Command("agentpool", append(fx.args, "serve", "--http", "127.0.0.1:0")...)
	cmd.Env = fx.env
	url := startServeCmd(t, cmd)
	stdio := strings.Join(append(append([]string{"agentpool"}, fx.args...), "serve", "--stdio"), " ")

	for _, c := range clients {
		t.Run(c.name+"/stdio", func(t *testing.T) {
			t.Parallel()
			var facts sessionFacts
			runScript(t, c.name+" over stdio", fx.env, append(slices.Clip(c.argv), "--stdio", stdio), fullScript(fx, c.name+"-stdio", &facts))
		})
		t.Run(c.name+"/http", func(t *testing.T) {
			t.Parallel()
			var wg sync.WaitGroup
			facts := make([]sessionFacts, 2)
			for i := range facts {
				wg.Go(func() {
					label := fmt.Sprintf("%s-http-%d", c.name, i+1)
					runScript(t, c.name+" over HTTP, session "+label, fx.env, append(slices.Clip(c.argv), "--http", url), fullScript(fx, label, &facts[i]))
				})
			}
			wg.Wait()
			for i := range facts {
				what := fmt.Sprintf("%s over HTTP, session %d", c.name, i+1)
				if facts[i].closed == "" {
					continue // the script failed before close, and said so
				}
				if facts[i].reconnected == "" || facts[i].reconnected == facts[i].closed || facts[i].closed != facts[i].first {
					t.Errorf("%s: session %q closed as %q, reconnected as %q: want a new session", what, facts[i].first, facts[i].closed, facts[i].reconnected)
				}
				if code := pingSession(t, url, facts[i].closed); code != http.StatusNotFound {
					t.Errorf("%s: a ping in session %q after DELETE answered %d, want 404", what, facts[i].closed, code)
				}
			}
		})
	}
}

// pingSession posts a ping in session id and returns the HTTP status.
func pingSession(t *testing.T, url, id string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// discoverBody is a server/discover request of the 2026-07-28 protocol, its version in _meta.
const discoverBody = `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestServeDiscoverUnknown: serve answers server/discover as a server of the initialize
// protocol answers a method it does not know, -32601, over stdio and over HTTP, whatever
// version the request names: not -32022 with a list of versions, which tells a client that
// the server speaks the newer protocol.
func TestServeDiscoverUnknown(t *testing.T) {
	t.Parallel()
	fixture := serveFixture(t)
	home := t.TempDir()
	check := func(transport string, data []byte) {
		t.Helper()
		var m struct {
			ID    int `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(bytes.TrimSpace(data), &m); err != nil || m.ID != 7 || m.Error == nil || m.Error.Code != -32601 {
			t.Errorf("%s: server/discover answered %s, want error -32601 for id 7", transport, data)
		}
	}

	cmd := exec.Command("agentpool", append(fixture, "serve", "--stdio")...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.Stdin = strings.NewReader(discoverBody + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve --stdio: %v", err)
	}
	line, _, _ := bytes.Cut(out, []byte("\n"))
	check("stdio", line)

	url, _ := startServeHTTP(t, home, fixture...)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(discoverBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	check("HTTP", data)
}
