package gateway

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A batch past maxBatch is counted, not decoded: refusing 30,000 calls costs next to no
// memory, whatever the batch holds.
func TestOversizeBatchNotDecoded(t *testing.T) {
	calls := make([]string, 30000)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, i+1)
	}
	body := []byte("[" + strings.Join(calls, ",") + "]")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	env := decodeEnvelope(body)
	runtime.ReadMemStats(&after)
	if !env.batch || env.err != nil || env.n != len(calls) {
		t.Fatalf("envelope: batch %v, err %v, %d messages counted; want a batch of %d", env.batch, env.err, env.n, len(calls))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("decoding a batch of %d messages allocated %d kB, want under 1 MB", len(calls), got>>10)
	}
	if why := batchRefusal("2025-03-26", env.n); !strings.Contains(why, "at most 64") {
		t.Errorf("refusal %q does not name the cap", why)
	}
}
