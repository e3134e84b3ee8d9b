package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// stdioProc is a `serve --stdio` process driven line by line, as a client that writes raw
// JSON-RPC would.
type stdioProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

// startStdio starts `agentpool <args> serve --stdio` with a home of its own.
func startStdio(t *testing.T, args ...string) *stdioProc {
	t.Helper()
	cmd := exec.Command("agentpool", append(args, "serve", "--stdio")...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stderr = &syncBuffer{}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &stdioProc{t: t, cmd: cmd, in: in, lines: make(chan string, 1024)}
	go func() {
		defer close(p.lines)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				p.lines <- strings.TrimSpace(line)
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = in.Close()
		waitExit(t, cmd, "serve --stdio")
	})
	return p
}

// send writes one line.
func (p *stdioProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write to serve --stdio: %v", err)
	}
}

// next returns the next line serve writes.
func (p *stdioProc) next(what string) string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("%s: serve --stdio closed its stdout; stderr:\n%s", what, p.cmd.Stderr)
		}
		return line
	case <-time.After(testwait.Timeout):
		p.t.Fatalf("%s: no answer from serve --stdio within %v", what, testwait.Timeout)
	}
	return ""
}

// initialize opens the session at version with a single initialize.
func (p *stdioProc) initialize(version string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if line := p.next("initialize"); !strings.Contains(line, `"protocolVersion":"`+version+`"`) {
		p.t.Fatalf("initialize at %s: %s", version, line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// pings returns a batch of n pings, ids from first.
func pings(first, n int) string {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, first+i)
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

// refusedWhole checks that line is one JSON-RPC error -32600 (not an array) whose message
// holds want.
func refusedWhole(t *testing.T, what, line, want string) {
	t.Helper()
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, want) {
		t.Errorf("%s: answered %.300s, want one error -32600 saying %q", what, line, want)
	}
}

// answered checks that line is an array of the answers to the ids want, in order, none an error.
func answered(t *testing.T, what, line string, want ...int) {
	t.Helper()
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &answers); err != nil || len(answers) != len(want) {
		t.Errorf("%s: answered %.300s, want an array of %d answers", what, line, len(want))
		return
	}
	for i, a := range answers {
		if a.ID != want[i] || a.Result == nil {
			t.Errorf("%s: answer %d is %+v, want the result of id %d", what, i, a, want[i])
		}
	}
}

// TestServeStdioBatchPerVersion: over stdio a JSON-RPC batch is read under the session's
// protocol version, as over HTTP. At 2025-11-25 it is refused whole with -32600 and the
// session goes on; at 2025-03-26 its messages are answered with one array, and a batch past
// 64 messages is refused with -32600 naming the cap; before initialize, a batch is read under
// the version its initialize asks for, and refused when it holds none.
func TestServeStdioBatchPerVersion(t *testing.T) {
	t.Parallel()
	fixture := serveFixture(t)

	modern := startStdio(t, fixture...)
	modern.initialize("2025-11-25")
	modern.send(pings(1, 1))
	refusedWhole(t, "a batch at 2025-11-25", modern.next("batch at 2025-11-25"), "2025-11-25")
	modern.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if line := modern.next("ping after the refused batch"); !strings.Contains(line, `"id":2`) || !strings.Contains(line, `"result"`) {
		t.Errorf("a ping after the refused batch: %s, want its result", line)
	}

	old := startStdio(t, fixture...)
	old.initialize("2025-03-26")
	old.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}}}]`)
	answered(t, "a batch at 2025-03-26", old.next("batch at 2025-03-26"), 1, 2)
	old.send(pings(10, 64))
	want := make([]int, 64)
	for i := range want {
		want[i] = 10 + i
	}
	answered(t, "a batch of 64 at 2025-03-26", old.next("batch of 64"), want...)
	old.send(pings(100, 65))
	refusedWhole(t, "a batch of 65 at 2025-03-26", old.next("batch of 65"), "at most 64")

	fresh := startStdio(t, fixture...)
	fresh.send(pings(1, 1))
	refusedWhole(t, "a batch before initialize", fresh.next("batch before initialize"), "no version")
	fresh.send(`[{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}]`)
	answered(t, "a batch [initialize] at 2025-03-26", fresh.next("[initialize]"), 0)
}

// TestServeStdioOversizeBatch: a stdio batch of 30,000 tools/call at 2025-03-26 is refused
// with -32600 naming the cap of 64, and serve's resident memory grows by less than 50 MB
// (peak, from /proc): the batch is counted, not decoded, and nothing of it runs.
func TestServeStdioOversizeBatch(t *testing.T) {
	t.Parallel()
	p := startStdio(t, serveFixture(t)...)
	p.initialize("2025-03-26")
	calls := make([]string, 30000)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}}}`, i+1)
	}
	before := procKB(t, p.cmd.Process.Pid, "VmRSS")
	p.send("[" + strings.Join(calls, ",") + "]")
	refusedWhole(t, "a batch of 30,000 calls", p.next("batch of 30,000"), "at most 64")
	if grew := procKB(t, p.cmd.Process.Pid, "VmHWM") - before; grew > 50<<10 {
		t.Errorf("serve's resident memory grew by %d MB, want under 50 MB", grew>>10)
	}
}

// TestServeStdioInflightCapped: over stdio, a session is served at most server.max_inflight
// requests at once; one more is answered at once with an error naming the key and the count,
// and once a call ends the session takes requests again.
func TestServeStdioInflightCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, fmt.Sprintf("server: {max_inflight: 2}\nmcp_servers:\n  fault: {command: %s, args: [--log, %s]}\n", testserver.Build(t), log))
	p := startStdio(t, "--no-default-roots", "--config", cfg)
	p.initialize("2025-11-25")
	for i := range 2 {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow-%d","method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":60000}}}`, i))
	}
	testwait.For(t, "both sleeps to begin upstream", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "begin ") == 2
	})
	p.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
	if line := p.next("a third request"); !strings.Contains(line, `"id":99`) || !strings.Contains(line, "server.max_inflight") || !strings.Contains(line, "2 requests in flight") {
		t.Errorf("a third request: %s, want an error naming server.max_inflight and the 2 in flight", line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-0"}}`)
	for line := ""; !strings.Contains(line, `"id":"slow-0"`); {
		line = p.next("the cancelled call's answer")
	}
	p.send(`{"jsonrpc":"2.0","id":100,"method":"ping"}`)
	if line := p.next("a request after a call ended"); !strings.Contains(line, `"id":100`) || !strings.Contains(line, `"result"`) {
		t.Errorf("a request after a call ended: %s, want its result", line)
	}
}
