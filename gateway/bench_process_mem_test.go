package gateway_test

import (
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchSessionsEnv names the environment variable that sets the number of idle sessions of
// BenchmarkServeProcessIdleSessionRSS (default defaultRSSSessions).
const benchSessionsEnv = "AGENTPOOL_BENCH_SESSIONS"

// defaultRSSSessions is the number of idle sessions BenchmarkServeProcessIdleSessionRSS opens
// unless benchSessionsEnv says otherwise.
const defaultRSSSessions = 1000

// rssBaseSessions is the number of sessions open when the growth starts to be measured, and in
// the second serve process the call's p50 is compared with.
const rssBaseSessions = 10

// rssCalls is the number of calls whose median is each p50 of the RSS benchmark: as many as
// the p50 benchmarks make at -benchtime 2000x, since on a shared machine the ratio of two
// medians of a few hundred calls each moves by more than the 10 % its target allows. It is
// also how many calls the go-sdk client makes through each process before the VmRSS "before"
// is read.
const rssCalls = 2000

// BenchmarkServeProcessIdleSessionRSS: the resident memory (VmRSS, from /proc) that idle
// sessions add to the `agentpool serve --http` process fronting a pool-scoped stdio
// faultserver, versus what they add to the faultserver's own process serving streamable HTTP
// directly. N sessions (1,000; $AGENTPOOL_BENCH_SESSIONS=10000 for the large run, which takes
// a minute a side; -benchtime 1x) are opened on each side the way a client opens one
// (initialize, then notifications/initialized) with raw HTTP requests over one kept-alive
// connection, holding no GET stream. Each iteration starts the processes afresh; serve is
// given --max-sessions N+100. It reports:
//
//   - serve-kB/session: serve's VmRSS (KiB, as /proc counts it) with the N sessions open
//     minus before the last N-10 were opened, ÷ N-10 (target ≤ 32 kB at N = 1,000); "before"
//     is read with rssBaseSessions sessions open, a go-sdk client having made its calls
//     through one more and closed it, so what is built once is not counted;
//   - direct-kB/session: the same of the direct server's process;
//   - x-direct-mem: their ratio, serve ÷ direct;
//   - serve-rss-MB: serve's VmRSS with the N sessions open (MB, 10⁶ bytes), and
//     rss-under-500MB: 1 if it is under 500 MB, else 0 (target at N = 10,000: 1);
//   - p50-at-n-µs: the p50 of an echo call through serve by a go-sdk client in session N+1,
//     with N others open; p50-at-10-µs: the same call's p50 at the same time through a second
//     serve process holding rssBaseSessions sessions (session 11), the two clients' calls
//     alternating, so that both see the same load of a shared machine; x-p50-at-10: their
//     ratio (target ≤ 1.1). They are measured once both processes have settled
//     (procSettle): the sessions are idle then, and the garbage collection that opening them
//     started on a heap of hundreds of MB (seconds of CPU at N = 10,000) is over.
func BenchmarkServeProcessIdleSessionRSS(b *testing.B) {
	n := defaultRSSSessions
	if v := os.Getenv(benchSessionsEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= rssBaseSessions {
			b.Fatalf("$%s=%q: want a number of sessions above %d", benchSessionsEnv, v, rssBaseSessions)
		}
	}
	hc := benchHTTPClient(b)
	var serveGrowth, directGrowth, serveRSS int64
	var p50Base, p50N time.Duration
	iters := 0
	for b.Loop() {
		p := startServe(b, benchSpecStdio(b), "--max-sessions", strconv.Itoa(n+100))
		ref := startServe(b, benchSpecStdio(b))
		directURL, directPID := benchFaultHTTPProc(b)

		// serve: the growth from a few sessions (a client having made its calls through one
		// more) to N; then the call's p50 there and in ref, holding a few, at the same time.
		for range rssBaseSessions {
			benchOpen(b, hc, p.url)
			benchOpen(b, hc, ref.url)
		}
		rssCallP50(b, p.url)
		before := procRSS(b, p.pid)
		for range n - rssBaseSessions {
			benchOpen(b, hc, p.url)
		}
		after := procRSS(b, p.pid)
		serveGrowth += after - before
		serveRSS += after
		procSettle(b, p.pid)
		procSettle(b, ref.pid)
		base, atN := rssCallP50s(b, ref.url, p.url)
		p50Base += base
		p50N += atN

		directGrowth += idleGrowth(b, hc, directURL, directPID, n)
		iters++
	}
	perSession := func(growth int64) float64 { return float64(growth) / 1024 / float64(iters*(n-rssBaseSessions)) }
	b.ReportMetric(perSession(serveGrowth), "serve-kB/session")
	b.ReportMetric(perSession(directGrowth), "direct-kB/session")
	b.ReportMetric(float64(serveGrowth)/float64(directGrowth), "x-direct-mem")
	rss := float64(serveRSS) / float64(iters)
	b.ReportMetric(rss/1e6, "serve-rss-MB")
	under := 0.0
	if rss < 500e6 {
		under = 1
	}
	b.ReportMetric(under, "rss-under-500MB")
	b.ReportMetric(float64(p50Base.Microseconds())/float64(iters), "p50-at-10-µs")
	b.ReportMetric(float64(p50N.Microseconds())/float64(iters), "p50-at-n-µs")
	b.ReportMetric(float64(p50N)/float64(p50Base), "x-p50-at-10")
}

// idleGrowth opens rssBaseSessions sessions at url and a go-sdk client's session that makes
// its calls and ends, then n-rssBaseSessions more sessions, and returns how much the VmRSS of
// process pid grew over those.
func idleGrowth(b *testing.B, hc *http.Client, url string, pid, n int) int64 {
	for range rssBaseSessions {
		benchOpen(b, hc, url)
	}
	rssCallP50Tool(b, url, "echo")
	before := procRSS(b, pid)
	for range n - rssBaseSessions {
		benchOpen(b, hc, url)
	}
	return procRSS(b, pid) - before
}

// rssCallP50 is rssCallP50Tool through the gateway.
func rssCallP50(b *testing.B, url string) time.Duration { return rssCallP50Tool(b, url, benchTool) }

// rssCallP50Tool connects a go-sdk client to url, makes rssCalls echo calls of tool after a
// few to warm up, closes the session and returns the calls' p50.
func rssCallP50Tool(b *testing.B, url, tool string) time.Duration {
	cs := benchConnect(b, url, benchHTTPClient(b), 1)[0]
	s := &side{name: url, tool: tool, sessions: []*mcp.ClientSession{cs}}
	s.warm(b)
	for range rssCalls {
		s.once(b)
	}
	if err := cs.Close(); err != nil {
		b.Fatalf("close the session at %s: %v", url, err)
	}
	return s.p50()
}

// rssCallP50s connects a go-sdk client to each of refURL and url, warms both up, makes rssCalls
// echo calls through each, alternating which goes first, closes both sessions and returns the
// p50 of each.
func rssCallP50s(b *testing.B, refURL, url string) (ref, at time.Duration) {
	r := &side{name: refURL, tool: benchTool, sessions: benchConnect(b, refURL, benchHTTPClient(b), 1)}
	s := &side{name: url, tool: benchTool, sessions: benchConnect(b, url, benchHTTPClient(b), 1)}
	r.warm(b)
	s.warm(b)
	for i := range rssCalls {
		if i%2 == 0 {
			r.once(b)
			s.once(b)
		} else {
			s.once(b)
			r.once(b)
		}
	}
	for _, x := range []*side{r, s} {
		if err := x.sessions[0].Close(); err != nil {
			b.Fatalf("close the session at %s: %v", x.name, err)
		}
	}
	return r.p50(), s.p50()
}
