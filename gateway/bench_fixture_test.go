package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/examples"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The benchmarks' fixtures: the gateway configured as `agentpool serve` configures it (a
// host built from a config file naming one upstream, pool-scoped as by default, the bundled
// example skills as skill roots, watching them; gateway.Options from the host's session
// hooks), served by an httptest server on 127.0.0.1; and the faultserver served directly
// over go-sdk streamable HTTP (its --http mode: one mcp.Server behind
// mcp.NewStreamableHTTPHandler, in its own process) as the baseline.

// benchGateway builds a host whose only MCP server is "fault" as given by spec (a YAML flow
// mapping: "{command: BIN}" or "{url: URL}") and serves its gateway over HTTP; it returns
// the gateway, its MCP endpoint URL and the host. Everything is closed when b ends.
func benchGateway(b testing.TB, spec string, set func(*gateway.Options)) (*gateway.Gateway, string, *host.Host) {
	b.Helper()
	skills := b.TempDir()
	if _, err := examples.WriteSkills(skills); err != nil {
		b.Fatal(err)
	}
	// With metrics, as `agentpool serve` has them: their cost is part of the call's.
	withMetrics := func(o *gateway.Options) {
		o.Metrics = gateway.NewMetrics(&gateway.MetricsOptions{Upstream: upstreamStat})
		if set != nil {
			set(o)
		}
	}
	g, srv, h := serveHost(b, "mcp_servers:\n  fault: "+spec+"\n", host.Options{SkillDirs: []string{skills}}, withMetrics)
	return g, srv.URL, h
}

// benchFaultHTTP starts the faultserver over streamable HTTP on 127.0.0.1 in its own process
// and returns its MCP endpoint URL; the process is killed when b ends.
func benchFaultHTTP(b testing.TB) string {
	b.Helper()
	u, _ := benchFaultHTTPProc(b)
	return u
}

// benchFaultHTTPProc is benchFaultHTTP, also returning the process's pid.
func benchFaultHTTPProc(b testing.TB) (string, int) {
	b.Helper()
	cmd := exec.Command(testserver.Build(b), "--http", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, out) // until the process ends
	}()
	select {
	case u := <-line:
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			b.Fatalf("faultserver printed %q", u)
		}
		return u, cmd.Process.Pid
	case <-time.After(20 * time.Second):
		b.Fatal("faultserver --http printed no URL")
		return "", 0
	}
}

// benchHTTPClient is an HTTP client that keeps enough idle connections for 32 concurrent
// sessions (each holding a GET stream besides its POSTs), so neither side pays for new
// connections during a run; its idle connections are closed when b ends.
func benchHTTPClient(b testing.TB) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 256
	tr.MaxIdleConnsPerHost = 128
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// benchConnect connects n go-sdk clients to url over streamable HTTP, closed when b ends.
func benchConnect(b testing.TB, url string, hc *http.Client, n int) []*mcp.ClientSession {
	b.Helper()
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			b.Fatalf("connect %s: %v", url, err)
		}
		out[i] = cs
	}
	b.Cleanup(func() {
		for _, cs := range out {
			_ = cs.Close()
		}
	})
	return out
}

// benchEcho calls tool (the faultserver's echo, under its name in the view) and checks the
// answer; an error fails the benchmark (a failed call is a bug, not a slow call).
func benchEcho(cs *mcp.ClientSession, tool string) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "ping"}})
	if err != nil {
		return fmt.Errorf("call %s: %w", tool, err)
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("call %s: %+v", tool, res)
	}
	if txt, ok := res.Content[0].(*mcp.TextContent); !ok || txt.Text != "ping" {
		return fmt.Errorf("call %s: %+v", tool, res.Content[0])
	}
	return nil
}

// side is one side of a comparison: the gateway or the direct baseline.
type side struct {
	name     string
	sessions []*mcp.ClientSession
	tool     string
	lat      []time.Duration // latencies of single calls
	calls    int             // calls made under load
	busy     time.Duration   // wall time of the rounds under load
}

// p50 is the median of the latencies recorded.
func (s *side) p50() time.Duration {
	l := slices.Clone(s.lat)
	slices.Sort(l)
	return l[len(l)/2]
}

// once times one call over the side's first session.
func (s *side) once(b testing.TB) {
	start := time.Now()
	if err := benchEcho(s.sessions[0], s.tool); err != nil {
		b.Fatalf("%s: %v", s.name, err)
	}
	s.lat = append(s.lat, time.Since(start))
}

// round has every session call per times, concurrently, and adds the calls and the round's
// wall time.
func (s *side) round(b testing.TB, per int) {
	var wg sync.WaitGroup
	start := time.Now()
	for _, cs := range s.sessions {
		wg.Go(func() {
			for range per {
				if err := benchEcho(cs, s.tool); err != nil {
					b.Errorf("%s: %v", s.name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	s.busy += time.Since(start)
	s.calls += per * len(s.sessions)
}

// rate is the side's throughput in calls per second.
func (s *side) rate() float64 { return float64(s.calls) / s.busy.Seconds() }

// warm makes a few calls over each session so that first-call costs (connections, caches)
// are paid before the timer starts.
func (s *side) warm(b testing.TB) {
	for _, cs := range s.sessions {
		for range 3 {
			if err := benchEcho(cs, s.tool); err != nil {
				b.Fatalf("%s: %v", s.name, err)
			}
		}
	}
}

// benchP50 runs the latency comparison: per iteration one call through the gateway and one
// direct, alternating which goes first, and reports both medians and their ratio.
func benchP50(b *testing.B, gw, direct *side) {
	gw.warm(b)
	direct.warm(b)
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			gw.once(b)
			direct.once(b)
		} else {
			direct.once(b)
			gw.once(b)
		}
		i++
	}
	g, d := gw.p50(), direct.p50()
	b.ReportMetric(float64(g.Microseconds()), "p50-gw-µs")
	b.ReportMetric(float64(d.Microseconds()), "p50-direct-µs")
	b.ReportMetric(float64(g)/float64(d), "p50-ratio")
}

// benchThroughput runs the throughput comparison: per iteration a round of per calls on each
// of the sessions through the gateway and one direct (alternating which goes first), and
// reports both rates and the ratio gateway/direct.
func benchThroughput(b *testing.B, gw, direct *side, per int) {
	gw.warm(b)
	direct.warm(b)
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			gw.round(b, per)
			direct.round(b, per)
		} else {
			direct.round(b, per)
			gw.round(b, per)
		}
		i++
	}
	b.ReportMetric(gw.rate(), "gw-calls/s")
	b.ReportMetric(direct.rate(), "direct-calls/s")
	b.ReportMetric(gw.rate()/direct.rate(), "tput-ratio")
}

// benchTool is the echo tool's name in the gateway's view: the server "fault", default prefix.
const benchTool = "fault__echo"

// benchSpecStdio is the faultserver as a stdio upstream (pool-scoped, the default).
func benchSpecStdio(b testing.TB) string { return fmt.Sprintf("{command: %q}", testserver.Build(b)) }

// benchServe serves h on 127.0.0.1 until b ends and returns its URL.
func benchServe(b testing.TB, h http.Handler) string {
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return srv.URL
}
