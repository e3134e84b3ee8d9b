package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/agentpool/agentpool/internal/testwait"
)

// scrape GETs serve's /metrics in the text format, with token when set, and parses it as
// Prometheus does.
func scrape(t *testing.T, mcpURL, token string) map[string]*dto.MetricFamily {
	t.Helper()
	resp := getMetrics(t, mcpURL, token)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// getMetrics GETs serve's /metrics in the text format, with token when set.
func getMetrics(t *testing.T, mcpURL, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(mcpURL, "/mcp")+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// series returns the series of fams[name] whose labels include labels, or nil.
func series(fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

// callEcho calls fault__echo with args and returns the result.
func callEcho(t *testing.T, cs *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__echo", Arguments: args})
	if err != nil {
		t.Fatalf("echo %v: %v", args, err)
	}
	return res
}

// TestServeMetrics runs `agentpool serve --http` with a real stdio upstream; a go-sdk client
// makes calls (one failing), and /metrics, parsed with the Prometheus text parser, shows
// them: the calls counter of (fault, fault__echo) equals the calls made, the error counter and
// the latency histogram moved, one live session, the session's upstream process.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	url, _ := startServeHTTP(t, t.TempDir(), serveFixture(t)...)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const ok = 3
	for range ok {
		if res := callEcho(t, cs, map[string]any{"text": "hi"}); res.IsError {
			t.Fatalf("echo: %+v", res)
		}
	}
	if res := callEcho(t, cs, map[string]any{"text": 5}); !res.IsError {
		t.Fatalf("echo of a number: %+v, want a tool error", res)
	}

	fams := scrape(t, url, "")
	echo := map[string]string{"server": "fault", "tool": "fault__echo"}
	if m := series(fams, "agentpool_tool_calls_total", echo); m.GetCounter().GetValue() != ok+1 {
		t.Errorf("agentpool_tool_calls_total%v = %v, want %d", echo, m, ok+1)
	}
	if m := series(fams, "agentpool_tool_call_errors_total", echo); m.GetCounter().GetValue() != 1 {
		t.Errorf("agentpool_tool_call_errors_total%v = %v, want 1", echo, m)
	}
	h := series(fams, "agentpool_tool_call_duration_seconds", echo).GetHistogram()
	if h.GetSampleCount() != ok+1 || h.GetSampleSum() <= 0 {
		t.Errorf("agentpool_tool_call_duration_seconds%v: count %d sum %v, want %d and > 0", echo, h.GetSampleCount(), h.GetSampleSum(), ok+1)
	}
	if m := series(fams, "agentpool_sessions", map[string]string{"agent": ""}); m.GetGauge().GetValue() != 1 {
		t.Errorf("agentpool_sessions = %v, want 1", m)
	}
	if m := series(fams, "agentpool_upstream_processes", nil); m.GetGauge().GetValue() < 1 {
		t.Errorf("agentpool_upstream_processes = %v, want ≥ 1", m)
	}
	for _, name := range []string{"agentpool_config_reloads_total", "agentpool_change_events_total", "agentpool_upstream_reconnects_total", "go_goroutines", "process_resident_memory_bytes"} {
		if fams[name] == nil {
			t.Errorf("no %s in /metrics", name)
		}
	}
}

// TestServeMetricsAgentsAndToken: with a token, /metrics needs it as /mcp does; the sessions
// gauge is per agent, a call to an agent's session-scoped server is counted under its name,
// and the upstream processes are the pool's shared server and the session's own, once each
// though two gateways see the shared one.
func TestServeMetricsAgentsAndToken(t *testing.T) {
	t.Parallel()
	_, url := startAgentServe(t, nil, "--no-default-roots", "--config", agentsConfig(t, "server:\n  token: tok\n"), "serve", "--http", "127.0.0.1:0")
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/agents/a",
		HTTPClient: &http.Client{Transport: bearerTransport{"tok"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, name := range []string{"mine__echo", "shared__echo"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "x"}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
	}
	resp := getMetrics(t, url, "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %s, want 401", resp.Status)
	}
	fams := scrape(t, url, "tok")
	for agent, want := range map[string]float64{"a": 1, "b": 0, "": 0} {
		if m := series(fams, "agentpool_sessions", map[string]string{"agent": agent}); m == nil || m.GetGauge().GetValue() != want {
			t.Errorf("agentpool_sessions{agent=%q} = %v, want %v", agent, m, want)
		}
	}
	for _, l := range []map[string]string{{"server": "mine", "tool": "mine__echo"}, {"server": "shared", "tool": "shared__echo"}} {
		if m := series(fams, "agentpool_tool_calls_total", l); m.GetCounter().GetValue() != 1 {
			t.Errorf("agentpool_tool_calls_total%v = %v, want 1", l, m)
		}
	}
	if m := series(fams, "agentpool_upstream_processes", nil); m.GetGauge().GetValue() != 2 {
		t.Errorf("agentpool_upstream_processes = %v, want 2 (shared, and the session's mine)", m)
	}
}

// TestServeJSONCallLog runs serve with --log-format json --log-level debug: every stderr line
// after the endpoint is one JSON object, there is one "tool call" line per call with its
// server, tool and outcome, and no line holds the arguments' values.
func TestServeJSONCallLog(t *testing.T) {
	t.Parallel()
	stderr := &syncBuffer{}
	cmd := exec.Command("agentpool", append(serveFixture(t), "--log-format", "json", "--log-level", "debug", "serve", "--http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		waitExit(t, cmd, "serve after SIGINT")
	}()
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:[1-9][0-9]*/mcp`)
	var url string
	defer func() {
		if url == "" {
			t.Logf("serve said:\n%s", stderr.String())
		}
	}()
	testwait.Within(t, 60*time.Second, "serve to print its endpoint", func() bool {
		url = endpoint.FindString(stderr.String())
		return url != ""
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const secret = "s3cret-argument-value"
	callEcho(t, cs, map[string]any{"text": secret})
	callEcho(t, cs, map[string]any{"text": secret + "-2"})
	callEcho(t, cs, map[string]any{"text": 12345})

	// A call's line is logged once its answer is on its way: the client may have it first.
	var calls []map[string]any
	var text string
	testwait.Within(t, 60*time.Second, "three tool call lines logged", func() bool {
		text = stderr.String()
		return strings.Count(text, `"msg":"tool call"`) >= 3
	})
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue // every other line, serve's own messages to the user included, is JSON
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a log line that is not JSON: %q", line)
			continue
		}
		if strings.Contains(line, secret) || strings.Contains(line, "12345") {
			t.Errorf("a log line holds an argument's value: %s", line)
		}
		if rec["msg"] == "tool call" {
			calls = append(calls, rec)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("%d tool call lines, want 3:\n%s", len(calls), stderr.String())
	}
	for i, want := range []string{"ok", "ok", "tool_error"} {
		c := calls[i]
		if c["level"] != "DEBUG" || c["server"] != "fault" || c["tool"] != "fault__echo" || c["outcome"] != want || c["session"] == "" || c["duration"] == nil {
			t.Errorf("call %d: %v, want level DEBUG, server fault, tool fault__echo, outcome %s, a session and a duration", i, c, want)
		}
	}
}

// TestLogFlagsClearErrors: a --log-format or --log-level the CLI does not know is refused,
// naming the flag, the value and what it takes.
func TestLogFlagsClearErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want []string }{
		{[]string{"--log-format", "xml", "version"}, []string{`--log-format "xml"`, "text or json"}},
		{[]string{"--log-level", "loud", "version"}, []string{`--log-level "loud"`, "debug, info, warn or error"}},
	} {
		cmd := exec.Command("agentpool", tc.args...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitFailure {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, exitFailure, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%v: %q, want it to say %q", tc.args, out, w)
			}
		}
	}
	if out, err := exec.Command("agentpool", "--log-format", "json", "--log-level", "WARN", "version").CombinedOutput(); err != nil {
		t.Errorf("valid log flags: %v\n%s", err, out)
	}
}
