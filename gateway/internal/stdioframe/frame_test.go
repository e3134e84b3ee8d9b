package stdioframe_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway/internal/stdioframe"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// peer is a go-sdk server behind a Transport, driven line by line over pipes.
type peer struct {
	t       *testing.T
	in      *io.PipeWriter
	lines   chan string
	started chan struct{} // a call of hold began
	ss      *mcp.ServerSession
}

// serve runs a go-sdk server with tool "hold" over a Transport that accepts every batch; each
// call of hold waits for release and records how many calls ran at once in maxRunning.
func serve(t *testing.T, release <-chan struct{}, maxRunning *int) *peer {
	t.Helper()
	return serveWith(t, release, maxRunning, stdioframe.Options{})
}

// serveWith is serve with opts, whose MaxBatch and BatchRefusal serve is given.
func serveWith(t *testing.T, release <-chan struct{}, maxRunning *int, opts stdioframe.Options) *peer {
	t.Helper()
	var mu sync.Mutex
	running := 0
	started := make(chan struct{}, 64)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		running++
		*maxRunning = max(*maxRunning, running)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
	})
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	opts.MaxBatch = 64
	opts.BatchRefusal = func(int, []wire.Message) string { return "" }
	tr := &stdioframe.Transport{In: sr, Out: sw, Options: opts}
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{t: t, in: cw, lines: make(chan string, 64), started: started, ss: ss}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(cr)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = ss.Close()
		_ = cr.Close()
		<-read
	})
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	p.next()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *peer) next() string {
	p.t.Helper()
	select {
	case l := <-p.lines:
		return l
	case <-time.After(testwait.Timeout):
		p.t.Fatal("no answer")
	}
	return ""
}

// ids returns the ids of the answers in the array line, and whether each has a result.
func ids(t *testing.T, line string) (out []string) {
	t.Helper()
	var answers []struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &answers); err != nil {
		t.Fatalf("%s: not an array of answers: %v", line, err)
	}
	for _, a := range answers {
		s := string(a.ID)
		if a.Result == nil {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

const holdCall = `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"hold","arguments":{}}}`

// A batch's messages are served one after the other, whatever the go-sdk would run at once,
// and answered with one array in the batch's order.
func TestBatchServedOneAtATime(t *testing.T) {
	release := make(chan struct{})
	close(release)
	maxRunning := 0
	p := serve(t, release, &maxRunning)
	p.send("[" + strings.Replace(holdCall, "ID", "1", 1) + `,{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},` +
		strings.Replace(holdCall, "ID", `"b"`, 1) + "," + strings.Replace(holdCall, "ID", "3", 1) + "]")
	if got := strings.Join(ids(t, p.next()), " "); got != `1 "b" 3` {
		t.Errorf("answers %s, want 1 \"b\" 3, each a result", got)
	}
	if maxRunning != 1 {
		t.Errorf("%d calls of the batch ran at once, want 1", maxRunning)
	}
}

// A request of a batch whose id another batch has in flight is answered with an error in its
// array, not served: its answer could not be told from the other's.
func TestBatchIDInFlightElsewhere(t *testing.T) {
	release := make(chan struct{})
	maxRunning := 0
	p := serve(t, release, &maxRunning)
	p.send("[" + strings.Replace(holdCall, "ID", "1", 1) + "]")
	p.send("[" + strings.Replace(holdCall, "ID", "1", 1) + "]")
	if got := ids(t, p.next()); len(got) != 1 || got[0] != "1!" {
		t.Errorf("the second batch: %v, want one error for id 1", got)
	}
	close(release)
	if got := ids(t, p.next()); len(got) != 1 || got[0] != "1" {
		t.Errorf("the first batch: %v, want the result of id 1", got)
	}
}

// A batch nested past what JSON-RPC messages are read at, or empty, is refused whole with
// -32600 saying which, and the connection goes on.
func TestBatchMalformedRefused(t *testing.T) {
	maxRunning := 0
	p := serve(t, nil, &maxRunning)
	for _, c := range []struct{ batch, want string }{
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "nests deeper"},
		{"[]", "empty batch"},
	} {
		p.send(c.batch)
		if line := p.next(); !strings.Contains(line, `"code":-32600`) || !strings.Contains(line, c.want) {
			t.Errorf("%.20s…: %s, want -32600 saying %q", c.batch, line, c.want)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if line := p.next(); !strings.Contains(line, `"id":9,"result"`) {
		t.Errorf("a ping after: %s", line)
	}
}

// running waits until a call of hold begins.
func (p *peer) running() {
	p.t.Helper()
	select {
	case <-p.started:
	case <-time.After(testwait.Timeout):
		p.t.Fatal("no call of hold began")
	}
}

// cancel sends notifications/cancelled for request id.
func (p *peer) cancel(id string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
}

// inflightOpts caps requests in flight at max.
func inflightOpts(max int) stdioframe.Options {
	return stdioframe.Options{MaxInflight: max, InflightError: func() *jsonrpc.Error {
		return &jsonrpc.Error{Code: -32000, Message: "too many in flight"}
	}}
}

// serveHeld is serveWith whose held calls return when t ends, if not cancelled before.
func serveHeld(t *testing.T, opts stdioframe.Options) *peer {
	release := make(chan struct{})
	maxRunning := 0
	p := serveWith(t, release, &maxRunning, opts)
	t.Cleanup(func() { close(release) })
	return p
}

// A request whose id is already in flight is refused without being counted, so the count of
// requests in flight comes back down once the first is answered.
func TestRequestIDInFlightNotCounted(t *testing.T) {
	p := serveHeld(t, inflightOpts(2))
	p.send(strings.Replace(holdCall, "ID", "1", 1))
	p.running()
	p.send(strings.Replace(holdCall, "ID", "1", 1))
	if line := p.next(); !strings.Contains(line, `"error"`) || strings.Contains(line, `"id":1`) {
		t.Fatalf("the second request of id 1: %s, want an error not attributed to id 1", line)
	}
	p.cancel("1")
	if line := p.next(); !strings.Contains(line, `"id":1,"result"`) {
		t.Fatalf("the first request of id 1 cancelled: %s", line)
	}
	p.send(strings.Replace(holdCall, "ID", "2", 1))
	p.running()
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if line := p.next(); !strings.Contains(line, `"id":3,"result"`) {
		t.Errorf("a ping with one request in flight of 2 allowed: %s", line)
	}
	p.cancel("2")
	p.next()
}

// A request of a batch whose id a request outside any batch has in flight is answered with an
// error in its array at once; it neither waits for nor takes the other's answer.
func TestBatchIDInFlightOutside(t *testing.T) {
	p := serveHeld(t, inflightOpts(8))
	p.send(strings.Replace(holdCall, "ID", "1", 1))
	p.running()
	p.send("[" + strings.Replace(holdCall, "ID", "1", 1) + "]")
	if got := ids(t, p.next()); len(got) != 1 || got[0] != "1!" {
		t.Errorf("the batch: %v, want one error for id 1", got)
	}
	p.cancel("1")
	if line := p.next(); !strings.Contains(line, `"id":1,"result"`) {
		t.Errorf("the request outside the batch: %s, want its own result", line)
	}
}

// A request outside any batch whose id a batch has in flight is refused with an error not
// attributed to that id, and the batch gets its own answer.
func TestRequestIDInFlightInBatch(t *testing.T) {
	p := serveHeld(t, inflightOpts(2))
	p.send("[" + strings.Replace(holdCall, "ID", "1", 1) + "]")
	p.running()
	p.send(strings.Replace(holdCall, "ID", "1", 1))
	if line := p.next(); !strings.Contains(line, `"error"`) || strings.Contains(line, `"id":1`) {
		t.Fatalf("the request of id 1 outside the batch: %s, want an error not attributed to id 1", line)
	}
	p.cancel("1")
	if got := ids(t, p.next()); len(got) != 1 || got[0] != "1" {
		t.Errorf("the batch: %v, want the result of id 1", got)
	}
	p.send(strings.Replace(holdCall, "ID", "2", 1))
	p.running()
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if line := p.next(); !strings.Contains(line, `"id":3,"result"`) {
		t.Errorf("a ping with one request in flight of 2 allowed: %s", line)
	}
	p.cancel("2")
	p.next()
}

// A client that closes its stdin while a batch is being served ends the connection: the
// go-sdk's session ends without being closed, and nothing of the batch is left running.
func TestBatchClientLeaves(t *testing.T) {
	p := serveHeld(t, stdioframe.Options{})
	p.send("[" + strings.Replace(holdCall, "ID", "1", 1) + "," + strings.Replace(holdCall, "ID", "2", 1) + "]")
	p.running()
	_ = p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.ss.Wait() }()
	select {
	case <-done:
	case <-time.After(testwait.Timeout):
		t.Fatal("the session did not end after its client closed stdin mid-batch")
	}
}

// A batch arriving at the cap of requests in flight has its requests refused, but its
// notifications and responses still reach the server: a cancellation sent to free a slot
// cancels.
func TestBatchAtCapPassesNotifications(t *testing.T) {
	p := serveHeld(t, inflightOpts(1))
	p.send(strings.Replace(holdCall, "ID", "1", 1))
	p.running()
	p.send(`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}},` + strings.Replace(holdCall, "ID", "2", 1) + "]")
	lines := []string{p.next(), p.next()}
	got := strings.Join(lines, "\n")
	if !strings.Contains(got, `"id":1,"result"`) || !strings.Contains(got, `[{"jsonrpc":"2.0","id":2,"error"`) {
		t.Errorf("got\n%s\nwant the cancelled call's answer and the batch's request refused", got)
	}
}
