package gateway_test

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// vmRSS returns the resident set of process pid, in bytes (/proc/<pid>/status).
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// A client that opens its GET stream and stops reading while a shared server logs 200 KB
// messages costs `agentpool serve` a bounded amount of memory: its notifications are dropped
// past the outbox's bound in bytes, with a warning, rather than queued by the thousand.
func TestStalledClientBoundedInBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 80 MB through a real serve process")
	}
	bin := testserver.Build(t)
	p := startServe(t, "{command: "+bin+"}", "--log-level", "warn")

	// The client that stops reading: a log level set, its GET stream open and never read.
	sid := rawSession(t, p.url, `{}`)
	if _, _, msgs := post(t, p.url, sid, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`, nil); rpcError(msgs) != nil || len(msgs) != 1 {
		t.Fatalf("setLevel: %v", msgs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	stream := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			stream <- nil
			return
		}
		stream <- resp // its body is never read
	}()

	// Another client makes the shared server log.
	cs, _ := connect(t, p.url, nil)
	text := strings.Repeat("x", 200<<10)
	logOnce := func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__log", Arguments: map[string]any{"level": "info", "text": text}})
		if err != nil || res.IsError {
			t.Fatalf("log: %v %+v", err, res)
		}
	}
	for range 20 {
		logOnce()
	}
	before := vmRSS(t, p.pid)
	for range 400 {
		logOnce()
	}
	after := vmRSS(t, p.pid)
	t.Logf("VmRSS %d MB → %d MB", before>>20, after>>20)
	if grew := after - before; grew > 64<<20 {
		t.Errorf("serve's RSS grew by %d MB for one client that stopped reading, want under 64 MB", grew>>20)
	}
	warned := 0
	for _, l := range p.lines() {
		if strings.Contains(l, "notifications dropped") && strings.Contains(l, sid) {
			warned++
		}
	}
	if warned != 1 {
		t.Logf("stderr: %q", p.lines())
		t.Errorf("%d warnings of dropped notifications for the stalled session, want 1", warned)
	}
	if resp := <-stream; resp != nil {
		cancel()
		resp.Body.Close()
	}
}
