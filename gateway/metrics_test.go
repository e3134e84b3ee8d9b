package gateway_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
)

// upstreamStat reads an mcpcap server's numbers (a *mcpcap.Cap, or what embeds one), as
// `agentpool serve` does.
func upstreamStat(c ext.Capability) (gateway.UpstreamStat, bool) {
	mc, ok := c.(interface{ Status() mcpcap.Status })
	if !ok {
		return gateway.UpstreamStat{}, false
	}
	st := mc.Status()
	return gateway.UpstreamStat{Server: st.Name, PID: st.PID, Reconnects: st.Reconnects, Degraded: st.State == mcpcap.StateDegraded}, true
}

// metric returns the value of the series of name whose labels include labels (a counter's or
// gauge's value, a histogram's sample count), and whether there is one.
func metric(t *testing.T, m *gateway.Metrics, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range s.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				return s.GetCounter().GetValue(), true
			case dto.MetricType_GAUGE:
				return s.GetGauge().GetValue(), true
			case dto.MetricType_HISTOGRAM:
				return float64(s.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

// TestMetricsCountBothPaths: a call passed through and a call on the go-sdk path (a progress
// token) each move the calls counter and the latency histogram of (server, tool); a call whose
// result has isError moves the error counter too; the session and its upstream process are
// live; a change event is counted by kind.
func TestMetricsCountBothPaths(t *testing.T) {
	m := gateway.NewMetrics(&gateway.MetricsOptions{Upstream: upstreamStat})
	f := newFixture(t, func(o *gateway.Options) { o.Metrics = m })
	echo := map[string]string{"server": "fault", "tool": "fault__echo"} // the name the capability lists it under
	cs := connectPassing(t, f.url)                                      // its probes are passed-through echo calls
	count := func(name string, l map[string]string) float64 {
		t.Helper()
		v, _ := metric(t, m, name, l)
		return v
	}

	calls0, hist0, errs0 := count("agentpool_tool_calls_total", echo), count("agentpool_tool_call_duration_seconds", echo), count("agentpool_tool_call_errors_total", echo)
	if calls0 < 1 || hist0 != calls0 {
		t.Fatalf("after the probes: calls %v, histogram count %v; want equal and ≥ 1", calls0, hist0)
	}

	const plain = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}%s}}`
	if _, hdr, _ := post(t, f.url, cs.ID(), fmt.Sprintf(plain, ""), nil); !isJSON(hdr) {
		t.Fatal("a plain call was not passed through")
	}
	if got := count("agentpool_tool_calls_total", echo); got != calls0+1 {
		t.Errorf("pass-through: calls %v, want %v", got, calls0+1)
	}
	if _, hdr, msgs := post(t, f.url, cs.ID(), fmt.Sprintf(plain, `,"_meta":{"progressToken":"p"}`), nil); isJSON(hdr) || len(msgs) == 0 {
		t.Fatalf("a call with a progress token was passed through: %v %v", hdr, msgs)
	}
	if got := count("agentpool_tool_calls_total", echo); got != calls0+2 {
		t.Errorf("go-sdk path: calls %v, want %v", got, calls0+2)
	}
	if got := count("agentpool_tool_call_duration_seconds", echo); got != hist0+2 {
		t.Errorf("histogram count %v, want %v", got, hist0+2)
	}
	if got := count("agentpool_tool_call_errors_total", echo); got != errs0 {
		t.Errorf("errors %v after successful calls, want %v", got, errs0)
	}

	// A failing call on each path: arguments the tool refuses.
	const bad = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":5}%s}}`
	if _, hdr, msgs := post(t, f.url, cs.ID(), fmt.Sprintf(bad, ""), nil); !isJSON(hdr) || len(msgs) != 1 {
		t.Fatalf("a failing call was not passed through: %v %v", hdr, msgs)
	} else if res, _ := msgs[0]["result"].(map[string]any); res["isError"] != true {
		t.Fatalf("want a result with isError (the tool refused its arguments): %v", msgs)
	}
	if _, _, msgs := post(t, f.url, cs.ID(), fmt.Sprintf(bad, `,"_meta":{"progressToken":"q"}`), nil); len(msgs) == 0 {
		t.Fatal("no answer on the go-sdk path")
	}
	if got := count("agentpool_tool_call_errors_total", echo); got != errs0+2 {
		t.Errorf("errors %v after two failing calls, want %v", got, errs0+2)
	}
	if got := count("agentpool_tool_calls_total", echo); got != calls0+4 {
		t.Errorf("calls %v, want %v", got, calls0+4)
	}
	// The status page's per-server sums read the same counters.
	if calls, errs, ok := m.ServerCalls("fault"); !ok || float64(calls) != calls0+4 || float64(errs) != errs0+2 {
		t.Errorf("ServerCalls(fault) = %d, %d, %v; want %v, %v, true", calls, errs, ok, calls0+4, errs0+2)
	}
	if _, _, ok := m.ServerCalls("nobody"); ok {
		t.Error("ServerCalls of a server never called says it was counted")
	}

	if got, _ := metric(t, m, "agentpool_sessions", map[string]string{"agent": ""}); got != 1 {
		t.Errorf("sessions %v, want 1", got)
	}
	if got, _ := metric(t, m, "agentpool_upstream_processes", nil); got != 1 {
		t.Errorf("upstream processes %v, want 1 (the session's fault server)", got)
	}
	if got, ok := metric(t, m, "agentpool_upstream_degraded", map[string]string{"server": "fault"}); !ok || got != 0 {
		t.Errorf("degraded %v (present %v), want 0", got, ok)
	}

	// A skill added is a skills_changed event of the pool's skill manager.
	before := count("agentpool_change_events_total", map[string]string{"kind": "skills_changed"})
	writeSkill(t, f.skills, "metered", "Counted.")
	testwait.For(t, "a skills_changed event to be counted", func() bool {
		return count("agentpool_change_events_total", map[string]string{"kind": "skills_changed"}) > before
	})

	m.ConfigReloaded(true)
	m.ConfigReloaded(false)
	m.ConfigReloaded(false)
	if ok, bad := count("agentpool_config_reloads_total", map[string]string{"result": "ok"}), count("agentpool_config_reloads_total", map[string]string{"result": "error"}); ok != 1 || bad != 2 {
		t.Errorf("reloads ok %v error %v, want 1 and 2", ok, bad)
	}

	_ = cs.Close()
	testwait.For(t, "the session to end", func() bool { return f.g.Sessions() == 0 })
	if got, _ := metric(t, m, "agentpool_sessions", map[string]string{"agent": ""}); got != 0 {
		t.Errorf("sessions %v after the client left, want 0", got)
	}
}

// TestRawIsError: the pass-through path tells a tool error from a result by the result's
// bytes, whatever their spacing, and is not fooled by the words inside a string.
func TestRawIsError(t *testing.T) {
	for res, want := range map[string]bool{
		`{"content":[],"isError":true}`:                              true,
		`{"isError" : true,"content":[]}`:                            true,
		"{\"content\":[],\n  \"isError\":\ttrue}":                    true,
		`{"content":[],"isError":false}`:                             false,
		`{"content":[{"type":"text","text":"\"isError\":true"}]}`:    false,
		`{"content":[{"type":"text","text":"isError"}],"isError":1}`: false,
		`{"content":[]}`: false,
	} {
		if got := gateway.RawIsError([]byte(res)); got != want {
			t.Errorf("%s: %v, want %v", res, got, want)
		}
	}
}

// TestMetricsHandlerGuarded: /metrics obeys the gateway's token and Origin checks, and
// serves the text format a scraper reads.
func TestMetricsHandlerGuarded(t *testing.T) {
	m := gateway.NewMetrics(nil)
	f := newFixture(t, func(o *gateway.Options) { o.Metrics = m; o.Token = "s3cret" })
	srv := httptest.NewServer(f.g.MetricsHandler())
	t.Cleanup(srv.Close)
	get := func(h map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+gateway.MetricsPath, nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(nil); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _ := get(map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}); code != http.StatusForbidden {
		t.Errorf("foreign origin: %d, want 403", code)
	}
	code, body := get(map[string]string{"Authorization": "Bearer s3cret"})
	if code != http.StatusOK || !strings.Contains(body, "agentpool_config_reloads_total") || !strings.Contains(body, "go_goroutines") {
		t.Errorf("with the token: %d\n%s", code, body)
	}
	// Without Metrics the route is a clear 404.
	g, err := gateway.New(gateway.Options{Registry: f.h.Registry})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	rec := httptest.NewRecorder()
	g.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, gateway.MetricsPath, nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "metrics are not enabled") {
		t.Errorf("no metrics: %d %q", rec.Code, rec.Body.String())
	}
}

// TestMetricsUpstreamReconnectAndDegrade: an upstream that crashes is reconnected by the next
// call (agentpool_upstream_reconnects_total, a warn line), and one that cannot start again is
// degraded (agentpool_upstream_degraded 1, a warn line); the crashing call is an error; no
// log line holds the server's env values.
func TestMetricsUpstreamReconnectAndDegrade(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "broken")
	logs := &lockedBuffer{}
	m := gateway.NewMetrics(&gateway.MetricsOptions{Upstream: upstreamStat})
	yaml := fmt.Sprintf("mcp_servers:\n  flaky:\n    command: sh\n    args: [-c, 'test -e %s && exit 3; exec %s']\n"+
		"    env: {API_KEY: envsecret-xyz}\n    retry: {attempts: 1, backoff: 10ms}\n", flag, testserver.Build(t))
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	_, srv, _ := serveHost(t, yaml, host.Options{Logger: log}, func(o *gateway.Options) { o.Metrics = m; o.Logger = log })
	cs, _ := connect(t, srv.URL, nil)
	ctx := context.Background()
	value := func(name string, l map[string]string) float64 {
		t.Helper()
		v, _ := metric(t, m, name, l)
		return v
	}
	flaky := map[string]string{"server": "flaky"}

	call(t, cs, "flaky__echo", map[string]any{"text": "up"})
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flaky__crash", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Fatalf("crash: %+v, want a failure", res)
	}
	if got := value("agentpool_tool_call_errors_total", map[string]string{"server": "flaky", "tool": "flaky__crash"}); got != 1 {
		t.Errorf("errors of the crashing call: %v, want 1", got)
	}
	call(t, cs, "flaky__echo", map[string]any{"text": "again"}) // reconnects
	if got := value("agentpool_upstream_reconnects_total", flaky); got != 1 {
		t.Errorf("reconnects %v, want 1", got)
	}
	if got := value("agentpool_upstream_degraded", flaky); got != 0 {
		t.Errorf("degraded %v while up, want 0", got)
	}

	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "flaky__crash", Arguments: map[string]any{}})
	testwait.For(t, "the server to be degraded", func() bool {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "flaky__echo", Arguments: map[string]any{"text": "x"}})
		return value("agentpool_upstream_degraded", flaky) == 1
	})
	if got := value("agentpool_upstream_processes", nil); got != 0 {
		t.Errorf("upstream processes %v with the only server degraded, want 0", got)
	}

	out := logs.String()
	for _, msg := range []string{"reconnected", "degraded: server unreachable"} {
		if !strings.Contains(out, `"level":"WARN","msg":"`+msg+`"`) {
			t.Errorf("no warn line %q in:\n%s", msg, out)
		}
	}
	if strings.Contains(out, "envsecret-xyz") {
		t.Errorf("a log line holds the server's env value:\n%s", out)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestMetricsCountSkillServers: a skill's own MCP server, which runs in the session that
// called its tool and is a child of the session's skill-servers capability (not a
// registration of its own), is a live upstream process, and its reconnects and degraded
// state are reported under its name ("<skill>.<server>").
func TestMetricsCountSkillServers(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ops")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: ops\ndescription: Ops.\nmcp-servers:\n  srv:\n    command: " + testserver.Build(t) + "\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	m := gateway.NewMetrics(&gateway.MetricsOptions{Upstream: upstreamStat})
	_, srv, _ := serveHost(t, "", host.Options{SkillDirs: []string{root}}, func(o *gateway.Options) { o.Metrics = m })
	cs, _ := connect(t, srv.URL, nil)
	call(t, cs, "ops__echo", map[string]any{"text": "x"})
	if got, _ := metric(t, m, "agentpool_upstream_processes", nil); got != 1 {
		t.Errorf("agentpool_upstream_processes = %v with the skill's server running, want 1", got)
	}
	if _, ok := metric(t, m, "agentpool_upstream_degraded", map[string]string{"server": "ops.srv"}); !ok {
		t.Errorf("no agentpool_upstream_degraded series of the skill's server ops.srv")
	}
}
