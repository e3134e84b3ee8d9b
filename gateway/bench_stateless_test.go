package gateway_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStatelessCall: one tools/call at a time through a stateless gateway versus a
// stateful one, each fronting its own pool-scoped stdio faultserver, alternating which goes
// first. A plain call is passed through on both (passthrough.go); with a progress token it
// takes the go-sdk path, where a stateless request also pays for a temporary go-sdk session.
// Neither compiles a view per request.
func BenchmarkStatelessCall(b *testing.B) {
	for _, progress := range []bool{false, true} {
		b.Run(fmt.Sprintf("progress=%t", progress), func(b *testing.B) {
			_, slURL, _ := benchGateway(b, benchSpecStdio(b), func(o *gateway.Options) { o.Stateless = true })
			_, sfURL, _ := benchGateway(b, benchSpecStdio(b), nil)
			sl := benchConnect(b, slURL, benchHTTPClient(b), 1)[0]
			sf := benchConnect(b, sfURL, benchHTTPClient(b), 1)[0]
			params := &mcp.CallToolParams{Name: benchTool, Arguments: map[string]any{"text": "ping"}}
			if progress {
				params.Meta = mcp.Meta{"progressToken": "t"}
			}
			call := func(cs *mcp.ClientSession, lat *[]time.Duration) {
				start := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
				*lat = append(*lat, time.Since(start))
			}
			var warm, lsl, lsf []time.Duration
			for range 5 {
				call(sl, &warm)
				call(sf, &warm)
			}
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					call(sl, &lsl)
					call(sf, &lsf)
				} else {
					call(sf, &lsf)
					call(sl, &lsl)
				}
				i++
			}
			p50 := func(l []time.Duration) time.Duration { slices.Sort(l); return l[len(l)/2] }
			s, f := p50(lsl), p50(lsf)
			b.ReportMetric(float64(s.Microseconds()), "p50-stateless-µs")
			b.ReportMetric(float64(f.Microseconds()), "p50-stateful-µs")
			b.ReportMetric(float64(s)/float64(f), "p50-ratio")
		})
	}
}
