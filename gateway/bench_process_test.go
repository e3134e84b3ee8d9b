package gateway_test

import (
	"testing"
	"time"
)

// The process benchmarks measure `agentpool serve --http` as users run it, a process of its
// own (startServe), from outside: what /proc says the process spent and holds, and what its
// clients wait. Each has its baseline in the same run: the faultserver served directly over
// go-sdk streamable HTTP (its --http mode, a process of its own) to the same clients.

// cpuSide is a side of a CPU comparison: its clients and the process whose CPU time is
// counted while they call.
type cpuSide struct {
	*side
	pid int
	cpu time.Duration // the process's CPU time over the side's rounds
}

// round is side.round, adding what the process spent meanwhile.
func (c *cpuSide) round(b *testing.B, per int) {
	before := procCPU(b, c.pid)
	c.side.round(b, per)
	c.cpu += procCPU(b, c.pid) - before
}

// perCall is the process's CPU time per call, in microseconds.
func (c *cpuSide) perCall() float64 { return cpuPerCall(c.cpu, c.calls) }

// cpuPerCall is cpu ÷ calls, in microseconds.
func cpuPerCall(cpu time.Duration, calls int) float64 {
	return float64(cpu) / float64(time.Microsecond) / float64(calls)
}

// benchProcessCPU connects throughputSessions clients to `agentpool serve --http` fronting
// spec and as many directly to the faultserver at directURL (process directPID), then runs
// rounds of throughputPer calls on every session, the sides taking turns, and reports:
//
//   - serve-cpu-us/call: the serve process's CPU time (user + system, from /proc) over the
//     whole timed run, both sides' rounds, ÷ the calls made through it, so that nothing it
//     does after answering escapes the count; the serve process only, not its stdio upstream;
//   - direct-cpu-us/call: the direct server's process's CPU time over its own side's rounds
//     only (with an HTTP upstream it is serve's upstream too) ÷ the calls made to it;
//   - x-direct-cpu: their ratio, serve ÷ direct;
//   - serve-monitor-share: the part of serve's CPU time over the timed run that its Go
//     runtime's monitor thread (sysmon) used, which a CPU profile does not show;
//   - gw-calls/s, direct-calls/s and tput-ratio, as the throughput benchmarks.
func benchProcessCPU(b *testing.B, spec, directURL string, directPID int) {
	p := startServe(b, spec)
	gw := &side{name: "gateway", tool: benchTool, sessions: benchConnect(b, p.url, benchHTTPClient(b), throughputSessions)}
	direct := &cpuSide{side: &side{name: "direct", tool: "echo", sessions: benchConnect(b, directURL, benchHTTPClient(b), throughputSessions)}, pid: directPID}
	gw.warm(b)
	direct.warm(b)
	serveBefore, monitorBefore := procCPU(b, p.pid), monitorCPU(b, p.pid)
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			gw.round(b, throughputPer)
			direct.round(b, throughputPer)
		} else {
			direct.round(b, throughputPer)
			gw.round(b, throughputPer)
		}
		i++
	}
	serveCPU := procCPU(b, p.pid) - serveBefore
	serve := cpuPerCall(serveCPU, gw.calls)
	b.ReportMetric(float64(monitorCPU(b, p.pid)-monitorBefore)/float64(serveCPU), "serve-monitor-share")
	b.ReportMetric(serve, "serve-cpu-us/call")
	b.ReportMetric(direct.perCall(), "direct-cpu-us/call")
	b.ReportMetric(serve/direct.perCall(), "x-direct-cpu")
	b.ReportMetric(gw.rate(), "gw-calls/s")
	b.ReportMetric(direct.rate(), "direct-calls/s")
	b.ReportMetric(gw.rate()/direct.rate(), "tput-ratio")
}

// BenchmarkServeProcessCPUStdioUpstream: the CPU time per forwarded call of the `agentpool
// serve --http` process fronting a pool-scoped stdio faultserver, versus that of the
// faultserver's own process serving the same echo tool directly over streamable HTTP, with 32
// sessions calling at once on each side (target: x-direct-cpu ≤ 0.20). Metrics as
// benchProcessCPU. Clock ticks are 10 ms on most machines: run enough rounds
// (-benchtime 200x) for the counts to mean something.
func BenchmarkServeProcessCPUStdioUpstream(b *testing.B) {
	u, pid := benchFaultHTTPProc(b)
	benchProcessCPU(b, benchSpecStdio(b), u, pid)
}

// BenchmarkServeProcessCPUHTTPUpstream is BenchmarkServeProcessCPUStdioUpstream with serve
// fronting the faultserver over streamable HTTP: the process that is the direct side's server
// is also serve's upstream, its CPU counted only over the direct side's rounds (target:
// x-direct-cpu ≤ 0.35).
func BenchmarkServeProcessCPUHTTPUpstream(b *testing.B) {
	u, pid := benchFaultHTTPProc(b)
	benchProcessCPU(b, "{url: "+u+"}", u, pid)
}

// BenchmarkServeProcessHTTPUpstreamP50 is BenchmarkHTTPUpstreamP50 with the gateway as
// `agentpool serve --http` in a process of its own (target: p50-ratio ≤ 1.5).
func BenchmarkServeProcessHTTPUpstreamP50(b *testing.B) {
	u := benchFaultHTTP(b)
	gw, direct := callSides(b, "{url: "+u+"}", u, 1, true)
	benchP50(b, gw, direct)
}

// BenchmarkServeProcessHTTPUpstreamThroughput32 is BenchmarkHTTPUpstreamThroughput32 with the
// gateway as `agentpool serve --http` in a process of its own.
func BenchmarkServeProcessHTTPUpstreamThroughput32(b *testing.B) {
	u := benchFaultHTTP(b)
	gw, direct := callSides(b, "{url: "+u+"}", u, throughputSessions, true)
	benchThroughput(b, gw, direct, throughputPer)
}
