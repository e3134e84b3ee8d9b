package stdioframe_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway/internal/stdioframe"
	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of one fuzz input: its lines and its bytes.
const (
	fuzzMaxLines = 8
	fuzzMaxBytes = 8 << 10
	// fuzzWait bounds each wait of one execution: long, since only a hang is a failure.
	fuzzWait = 10 * time.Second
)

// fuzzVersions are the protocol versions an input's first byte picks from: one with JSON-RPC
// batches, one without.
var fuzzVersions = [...]string{"2025-03-26", "2025-11-25"}

// fuzzBatchRefusal refuses batches as the gateway does: not at all under a version after
// 2025-03-26, past 64 messages otherwise.
func fuzzBatchRefusal(version string) func(int, []wire.Message) string {
	return func(n int, _ []wire.Message) string {
		switch {
		case version >= "2025-06-18":
			return "no batches in " + version
		case n > 64:
			return fmt.Sprintf("a batch holds at most 64 messages; this one holds %d", n)
		}
		return ""
	}
}

// fuzzSeed is an input: version index v, then lines.
func fuzzSeed(v byte, lines ...string) []byte {
	return append([]byte{v}, strings.Join(lines, "\n")...)
}

// FuzzFrame sends a client's lines to a go-sdk server through a Transport, after a valid
// initialize, then a ping of an id the input cannot name. Every line the Transport writes is
// one JSON object or an array of objects, the ping is answered, and closing the client's
// input ends the session.
func FuzzFrame(f *testing.F) {
	ping := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	echo := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	}
	note := `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`
	discover := `{"jsonrpc":"2.0","id":7,"method":"server/discover"}`
	var pings []string
	for i := range 65 {
		pings = append(pings, ping(fmt.Sprint(i+1)))
	}
	batch := "[" + echo("1") + "," + note + "," + ping(`"b"`) + "]"
	for v := range byte(len(fuzzVersions)) {
		f.Add(fuzzSeed(v, batch))
		f.Add(fuzzSeed(v, "["+strings.Join(pings[:64], ",")+"]"))
		f.Add(fuzzSeed(v, "["+strings.Join(pings, ",")+"]"))
		f.Add(fuzzSeed(v, discover, "["+discover+","+note+"]"))
		f.Add(fuzzSeed(v, "["+note+","+note+"]"))
		f.Add(fuzzSeed(v, echo("1"), echo("1"), "["+echo("1")+","+echo("1")+"]", echo("1")))
		f.Add(fuzzSeed(v, `{"jsonrpc":"2.0","id":1,`, `not json`, `{}`, `[1,"x",null]`))
		f.Add(fuzzSeed(v, "", "   ", "[]", "[ ]"))
		f.Add(fuzzSeed(v, strings.Repeat("[", 1001)+strings.Repeat("]", 1001)))
		f.Add(fuzzSeed(v, `{"jsonrpc":"2.0","id":1,"method":"ping","params":`+strings.Repeat(`{"a":`, 1001)+"1"+strings.Repeat("}", 1001)+"}"))
		f.Add(fuzzSeed(v, "["+echo("1")+","+`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"]"))
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > fuzzMaxBytes {
			return
		}
		version := fuzzVersions[int(data[0])%len(fuzzVersions)]
		lines := bytes.Split(data[1:], []byte{'\n'})
		if len(lines) > fuzzMaxLines {
			return
		}
		fuzzSession(t, srv, version, lines)
	})
}

// fuzzSession serves lines under version (see FuzzFrame) and checks what is written back.
func fuzzSession(t *testing.T, srv *mcp.Server, version string, lines [][]byte) {
	nonce := fmt.Sprintf(`"%016x"`, rand.Uint64())
	initID, pingID := `"init-`+nonce[1:], `"ping-`+nonce[1:]
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	tr := &stdioframe.Transport{In: sr, Out: sw, Options: stdioframe.Options{
		Refused: func(method string) *jsonrpc.Error {
			if method == "server/discover" {
				return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no discover"}
			}
			return nil
		},
		MaxBatch:      64,
		BatchRefusal:  fuzzBatchRefusal(version),
		MaxInflight:   4,
		InflightError: func() *jsonrpc.Error { return &jsonrpc.Error{Code: -32000, Message: "too many in flight"} },
	}}
	ss, err := srv.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The client's reader: every line checked, the answers to initID and pingID signalled.
	initAnswer, pingAnswer := make(chan struct{}), make(chan struct{})
	answered := map[string]chan struct{}{initID: initAnswer, pingID: pingAnswer}
	var mu sync.Mutex
	var bad []string
	read := make(chan struct{})
	go func() {
		defer close(read)
		br := bufio.NewReader(cr)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 && line[len(line)-1] != '\n' {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("a partial line at the end: %q", line))
				mu.Unlock()
			}
			if err != nil {
				return
			}
			id, why := fuzzCheckLine(line[:len(line)-1])
			if why != "" {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("%q: %s", line, why))
				mu.Unlock()
			}
			if ch, ok := answered[id]; ok {
				delete(answered, id)
				close(ch)
			}
		}
	}()
	// wait waits for ch, or for the session to end: the go-sdk ends it on some lines that
	// are not messages it can read, as it does without a Transport.
	wait := func(ch <-chan struct{}, what string) bool {
		select {
		case <-ch:
			return true
		case <-read:
		case <-time.After(fuzzWait):
			t.Errorf("no %s within %v", what, fuzzWait)
		}
		return false
	}
	send := func(line []byte) bool {
		done := make(chan error, 1)
		go func() { _, err := cw.Write(append(line[:len(line):len(line)], '\n')); done <- err }()
		select {
		case err := <-done:
			return err == nil // an error: the session has ended
		case <-time.After(fuzzWait):
			t.Errorf("writing %q blocked for %v", line, fuzzWait)
			_ = cw.CloseWithError(io.ErrClosedPipe) // the writer above returns
			return false
		}
	}

	ok := send([]byte(`{"jsonrpc":"2.0","id":`+initID+`,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)) &&
		wait(initAnswer, "answer to initialize") &&
		send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for _, line := range lines {
		ok = ok && send(line)
	}
	ping := []byte(`{"jsonrpc":"2.0","id":` + pingID + `,"method":"ping"}`)
	ok = ok && send(ping)
	if ok && fuzzReadAlone(lines, ping) {
		wait(pingAnswer, "answer to the final ping")
	}

	_ = cw.Close()
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ended:
	case <-time.After(fuzzWait):
		t.Errorf("the session did not end within %v of its input closing", fuzzWait)
		_ = ss.Close()
		<-ended
	}
	_ = cr.Close()
	<-read
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bad {
		t.Error(b)
	}
}

// fuzzReadAlone reports whether last, sent after lines, is read as a message of its own: not
// when the lines leave a JSON value open, which last then continues.
func fuzzReadAlone(lines [][]byte, last []byte) bool {
	lr := wire.NewLineReader(bytes.NewReader(append(bytes.Join(lines, []byte{'\n'}), append([]byte{'\n'}, last...)...)), mcp.DefaultMaxLineLength)
	var msg []byte
	for {
		m, err := lr.Next()
		if err != nil && !errors.Is(err, wire.ErrParse) {
			return bytes.Equal(msg, last)
		}
		msg = m
	}
}

// fuzzCheckLine returns the id of the answer line is (its raw JSON), and why line is not one
// JSON object or an array of objects ("" if it is).
func fuzzCheckLine(line []byte) (id, why string) {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return "", "not one JSON value: " + err.Error()
	}
	switch v := v.(type) {
	case map[string]any:
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &m)
		return string(m.ID), ""
	case []any:
		if len(v) == 0 {
			return "", "an empty array"
		}
		for i, e := range v {
			if _, ok := e.(map[string]any); !ok {
				return "", fmt.Sprintf("element %d is not an object", i)
			}
		}
		return "", ""
	}
	return "", "neither an object nor an array"
}
