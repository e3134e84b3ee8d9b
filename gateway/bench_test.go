package gateway_test

// Benchmarks of issue 10's acceptance ("Benchmarks"): each runs its direct baseline in the
// same run, alternating with the gateway, and reports both and their ratio with
// b.ReportMetric. Speed is measured here, never asserted: the targets (p50 ratio ≤ 1.2 and
// throughput ≥ 1.3× direct with a stdio upstream; ≤ 1.6 and ≥ 0.8× with an HTTP upstream;
// ≤ 48 KiB per idle session) are read from the output, e.g.
//
//	go test -run '^$' -bench . -benchtime 2000x ./gateway
//
// The baseline of the call benchmarks is the same go-sdk client calling the faultserver served
// directly over go-sdk streamable HTTP (its --http mode, its own process). The gateway is
// served in the benchmark's process (gateway.Handler behind an httptest server on 127.0.0.1,
// configured as `agentpool serve` configures it), so the clients and the gateway share its
// CPUs; the BenchmarkServeProcess* variants run `agentpool serve --http` in a process of its own
// (bench_serve_test.go), one more process on the call's path.

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// throughputSessions is the number of concurrent client sessions of the throughput benchmarks.
const throughputSessions = 32

// throughputPer is how many calls each session makes per round.
const throughputPer = 8

// callSides connects n clients through the gateway, whose upstream is spec, and n directly to
// the faultserver at directURL. The gateway is served in this process (benchGateway), or is
// `agentpool serve --http` in its own (benchServeProcess) when process is set.
func callSides(b *testing.B, spec, directURL string, n int, process bool) (gw, direct *side) {
	var url string
	if process {
		url = benchServeProcess(b, spec)
	} else {
		_, url, _ = benchGateway(b, spec, nil)
	}
	gw = &side{name: "gateway", tool: benchTool, sessions: benchConnect(b, url, benchHTTPClient(b), n)}
	direct = &side{name: "direct", tool: "echo", sessions: benchConnect(b, directURL, benchHTTPClient(b), n)}
	return gw, direct
}

// BenchmarkStdioUpstreamP50: one call at a time through the gateway to a stdio upstream,
// versus directly to that server over streamable HTTP (target: p50-ratio ≤ 1.2).
func BenchmarkStdioUpstreamP50(b *testing.B) {
	gw, direct := callSides(b, benchSpecStdio(b), benchFaultHTTP(b), 1, false)
	benchP50(b, gw, direct)
}

// BenchmarkStdioUpstreamThroughput32: 32 sessions calling at once through the gateway to one
// (pool-scoped) stdio upstream, versus 32 sessions calling that server directly over
// streamable HTTP (target: tput-ratio ≥ 1.3).
func BenchmarkStdioUpstreamThroughput32(b *testing.B) {
	gw, direct := callSides(b, benchSpecStdio(b), benchFaultHTTP(b), throughputSessions, false)
	benchThroughput(b, gw, direct, throughputPer)
}

// BenchmarkHTTPUpstreamP50: the gateway fronting the faultserver over streamable HTTP, versus
// the same server called directly (target: p50-ratio ≤ 1.6).
func BenchmarkHTTPUpstreamP50(b *testing.B) {
	u := benchFaultHTTP(b)
	gw, direct := callSides(b, "{url: "+u+"}", u, 1, false)
	benchP50(b, gw, direct)
}

// BenchmarkHTTPUpstreamThroughput32: as BenchmarkHTTPUpstreamP50 with 32 concurrent sessions
// on each side (target: tput-ratio ≥ 0.8).
func BenchmarkHTTPUpstreamThroughput32(b *testing.B) {
	u := benchFaultHTTP(b)
	gw, direct := callSides(b, "{url: "+u+"}", u, throughputSessions, false)
	benchThroughput(b, gw, direct, throughputPer)
}

// BenchmarkServeProcessStdioUpstreamP50 is BenchmarkStdioUpstreamP50 with the gateway as
// `agentpool serve --http` in a process of its own: one more process on the call's path.
func BenchmarkServeProcessStdioUpstreamP50(b *testing.B) {
	gw, direct := callSides(b, benchSpecStdio(b), benchFaultHTTP(b), 1, true)
	benchP50(b, gw, direct)
}

// BenchmarkServeProcessStdioUpstreamThroughput32 is BenchmarkStdioUpstreamThroughput32 with
// the gateway as `agentpool serve --http` in a process of its own.
func BenchmarkServeProcessStdioUpstreamThroughput32(b *testing.B) {
	gw, direct := callSides(b, benchSpecStdio(b), benchFaultHTTP(b), throughputSessions, true)
	benchThroughput(b, gw, direct, throughputPer)
}

// idleSessions is the number of sessions of BenchmarkIdleSessionMemory.
const idleSessions = 1000

// BenchmarkIdleSessionMemory: the live heap (HeapAlloc after GC; HeapInuse, which adds the
// spans' free space, is reported as *-inuse-B/session) per idle client session, with 1,000
// sessions open, of the gateway (each session its own mcp.Server holding the full view: the
// faultserver's tools, resource and prompt, the bundled example skills as prompts and
// resources) versus a bare go-sdk mcp.Server per session (the faultserver's echo tool only)
// behind mcp.NewStreamableHTTPHandler (target: gw-B/session ≤ 48 KiB). A session is
// opened the way a client opens one (initialize, then notifications/initialized) with raw
// HTTP requests over one kept-alive connection, so the client side costs nothing per
// session; it holds no GET stream (whose cost is a connection's). Goroutine stacks are
// reported apart (stack-B/session), since HeapInuse leaves them out.
func BenchmarkIdleSessionMemory(b *testing.B) {
	g, gwURL, _ := benchGateway(b, benchSpecStdio(b), func(o *gateway.Options) { o.MaxSessions = 2 * idleSessions })
	_ = g
	bare := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	direct := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return bare // consulted for its protocol versions only
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text argument unchanged."}, benchEchoTool)
		return s
	}, nil)
	directURL := benchServe(b, direct)
	hc := benchHTTPClient(b)

	var gw, base memSide
	for b.Loop() {
		gw.measure(b, hc, gwURL, idleSessions)
		base.measure(b, hc, directURL, idleSessions)
	}
	b.ReportMetric(gw.heapPer(), "gw-B/session")
	b.ReportMetric(base.heapPer(), "bare-B/session")
	b.ReportMetric(gw.heapPer()/base.heapPer(), "mem-ratio")
	b.ReportMetric(gw.inusePer(), "gw-inuse-B/session")
	b.ReportMetric(base.inusePer(), "bare-inuse-B/session")
	b.ReportMetric(gw.stackPer(), "gw-stack-B/session")
	b.ReportMetric(base.stackPer(), "bare-stack-B/session")
	b.ReportMetric(gw.goroutinesPer(), "gw-goroutines/session")
	b.ReportMetric(base.goroutinesPer(), "bare-goroutines/session")
}

type benchTextArg struct {
	Text string `json:"text"`
}

func benchEchoTool(_ context.Context, _ *mcp.CallToolRequest, in benchTextArg) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

// memSide accumulates the measurements of one side of BenchmarkIdleSessionMemory.
type memSide struct {
	sessions                      int
	heap, inuse, stack, goroutine int64
}

func (m *memSide) heapPer() float64       { return float64(m.heap) / float64(m.sessions) }
func (m *memSide) inusePer() float64      { return float64(m.inuse) / float64(m.sessions) }
func (m *memSide) stackPer() float64      { return float64(m.stack) / float64(m.sessions) }
func (m *memSide) goroutinesPer() float64 { return float64(m.goroutine) / float64(m.sessions) }

// measure opens n idle sessions at url, adds what they hold (heap in use and stacks after
// GC, goroutines) and ends them. A few sessions are opened and ended first, so that what is
// built once (caches, pools, the connection) is not counted.
func (m *memSide) measure(b *testing.B, hc *http.Client, url string, n int) {
	b.StopTimer()
	for range 5 {
		benchDelete(b, hc, url, benchOpen(b, hc, url))
	}
	b.StartTimer()
	before := benchMem()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = benchOpen(b, hc, url)
	}
	after := benchMem()
	m.sessions += n
	m.heap += int64(after.HeapAlloc) - int64(before.HeapAlloc)
	m.inuse += int64(after.HeapInuse) - int64(before.HeapInuse)
	m.stack += int64(after.StackInuse) - int64(before.StackInuse)
	m.goroutine += int64(after.goroutines - before.goroutines)
	for _, id := range ids {
		benchDelete(b, hc, url, id)
	}
	// The sessions' ends finish in the background: let them, before anything else is measured.
	b.StopTimer()
	testwait.Within(b, 20*time.Second, "the sessions' goroutines to end", func() bool { return runtime.NumGoroutine() <= before.goroutines })
	b.StartTimer()
}

type memStats struct {
	runtime.MemStats
	goroutines int
}

func benchMem() memStats {
	var m memStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m.MemStats)
	m.goroutines = runtime.NumGoroutine()
	return m
}

// benchOpen opens a session at url as a client does and returns its id.
func benchOpen(b testing.TB, hc *http.Client, url string) string {
	b.Helper()
	resp := benchPost(b, hc, url, "", initBody)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		b.Fatalf("initialize: %s, session %q", resp.Status, id)
	}
	resp = benchPost(b, hc, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		b.Fatalf("notifications/initialized: %s", resp.Status)
	}
	return id
}

// benchPost posts body (in session id, if any) and reads the whole response.
func benchPost(b testing.TB, hc *http.Client, url, id, body string) *http.Response {
	b.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// benchDelete ends session id at url.
func benchDelete(b testing.TB, hc *http.Client, url, id string) {
	b.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b.Fatalf("DELETE: %s", resp.Status)
	}
}

// BenchmarkHTTPUpstreamDials32: the TCP connections the gateway opens to its HTTP upstream
// per call, with 32 sessions calling at once (upstream-dials/call; a pooled client keeps
// this near 0). The upstream is reached through a counting TCP proxy, so the calls/s here
// are not comparable with BenchmarkHTTPUpstreamThroughput32's.
func BenchmarkHTTPUpstreamDials32(b *testing.B) {
	proxy, u := newBenchProxy(b, benchFaultHTTP(b))
	_, url, _ := benchGateway(b, "{url: "+u+"}", nil)
	gw := &side{name: "gateway", tool: benchTool, sessions: benchConnect(b, url, benchHTTPClient(b), throughputSessions)}
	gw.warm(b)
	before := proxy.dials.Load()
	calls := 0
	for b.Loop() {
		gw.round(b, throughputPer)
		calls += throughputPer * throughputSessions
	}
	b.ReportMetric(float64(proxy.dials.Load()-before)/float64(calls), "upstream-dials/call")
	b.ReportMetric(gw.rate(), "gw-calls/s")
}
