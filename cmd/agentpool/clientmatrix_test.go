package main

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// matrixReport is what the client programs of the matrix print (internal/clientmatrix/mcpgo,
// testdata/clientmatrix/client.mjs).
type matrixReport struct {
	ProtocolVersion string   `json:"protocol_version"`
	Server          string   `json:"server"`
	Tools           []string `json:"tools"`
	CallText        string   `json:"call_text"`
	CallIsError     bool     `json:"call_is_error"`
	Step            string   `json:"step"`
	Error           string   `json:"error"`
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

// runClient runs a client program with args and returns its report; home is the HOME of the
// serve it starts over stdio.
func runClient(t *testing.T, home string, argv ...string) matrixReport {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r matrixReport
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &r); jerr != nil {
		t.Fatalf("%s: %v; printed %q; stderr:\n%s", strings.Join(argv, " "), err, out, tail(stderr.String(), 2000))
	}
	if err != nil || r.Error != "" {
		t.Errorf("%s: failed at %s: %s (%v); stderr:\n%s", filepath.Base(argv[0]), r.Step, r.Error, err, tail(stderr.String(), 2000))
	}
	return r
}

// checkReport checks that a client listed the fixture's tools and called fault__echo.
func checkReport(t *testing.T, what string, r matrixReport, wantVersion string) {
	t.Helper()
	if r.Server != "agentpool" || !slices.Contains(r.Tools, "fault__echo") || !slices.Contains(r.Tools, "load_skill") {
		t.Errorf("%s: server %q, tools %v: want agentpool's, fault__echo and load_skill among them", what, r.Server, r.Tools)
	}
	if r.CallText != "matrix" || r.CallIsError {
		t.Errorf("%s: fault__echo answered %q (error %v), want %q", what, r.CallText, r.CallIsError, "matrix")
	}
	if wantVersion != "" && r.ProtocolVersion != wantVersion {
		t.Errorf("%s: negotiated %q, want %q", what, r.ProtocolVersion, wantVersion)
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
	url, _ := startServeHTTP(t, home, fixture...)
	stdio := strings.Join(append(append([]string{"agentpool"}, fixture...), "serve", "--stdio"), " ")
	call := []string{"--call", "fault__echo", "--args", `{"text":"matrix"}`}

	mcpgo := mcpgoClient(t)
	for _, v := range []string{"", "2025-06-18", "2025-03-26", "2024-11-05"} {
		want := v
		if v == "" {
			want = "2025-11-25"
		}
		version := []string{}
		if v != "" {
			version = []string{"-version", v}
		}
		r := runClient(t, home, slices.Concat([]string{mcpgo, "-http", url}, version, []string{"-call", "fault__echo", "-args", `{"text":"matrix"}`})...)
		checkReport(t, "mcp-go over HTTP asking "+want, r, want)
		r = runClient(t, home, slices.Concat([]string{mcpgo, "-stdio", stdio}, version, []string{"-call", "fault__echo", "-args", `{"text":"matrix"}`})...)
		checkReport(t, "mcp-go over stdio asking "+want, r, want)
	}

	ts := tsClient(t)
	checkReport(t, "TypeScript SDK over HTTP", runClient(t, home, slices.Concat(ts, []string{"--http", url}, call)...), "2025-11-25")
	checkReport(t, "TypeScript SDK over stdio", runClient(t, home, slices.Concat(ts, []string{"--stdio", stdio}, call)...), "")

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
