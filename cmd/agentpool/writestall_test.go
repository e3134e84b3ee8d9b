package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// TestServeStuckClient: a client of serve's HTTP listener that sends requests one after the
// other and never reads their answers (small ones, which net/http writes after the handler
// returns, outside any guard of the handler's) has its connection closed by serve once a
// write to it has stalled past the bound.
func TestServeStuckClient(t *testing.T) {
	defer setServeWriteStall(200 * time.Millisecond)()
	answer := `{"jsonrpc":"2.0","id":1,"result":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	})
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serveHTTP(ctx, pw, func() http.Handler { return h }, nil, "127.0.0.1:0", time.Minute, 0, nil, func() error { return nil })
	}()
	defer func() { cancel(); <-served; pw.Close() }()
	out := bufio.NewReader(pr)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	_, rest, _ := strings.Cut(line, "http://")
	addr, _, _ := strings.Cut(rest, "/")

	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) })
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ended := make(chan error, 1)
	go func() { // requests, one after the other, their answers never read
		const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		for {
			if _, err := fmt.Fprintf(nc, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body); err != nil {
				ended <- err
				return
			}
		}
	}()
	var err2 error
	testwait.Within(t, 30*time.Second, "serve closed the connection of a client that stopped reading", func() bool {
		select {
		case err2 = <-ended:
			return true
		default:
			return false
		}
	})
	t.Logf("the client's write failed: %v", err2)
}

// setServeWriteStall sets serve's bound on a stalled write to d and returns what restores it.
func setServeWriteStall(d time.Duration) func() {
	old := serveWriteStall
	serveWriteStall = d
	return func() { serveWriteStall = old }
}
