package gateway_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// An idle session (initialized, no GET stream, nothing in flight) runs at most two goroutines,
// the go-sdk's reading of its connection and the wait for the connection's end: following the
// registry's changes costs it none until a change comes.
func TestIdleSessionGoroutines(t *testing.T) {
	_, url, _ := benchGateway(t, benchSpecStdio(t), nil)
	hc := benchHTTPClient(t)
	benchOpen(t, hc, url) // what is built once
	const n = 20
	before := runtime.NumGoroutine()
	for range n {
		benchOpen(t, hc, url)
	}
	testwait.Within(t, 10*time.Second, "at most 2 goroutines per idle session", func() bool {
		return runtime.NumGoroutine()-before <= 2*n
	})
}
