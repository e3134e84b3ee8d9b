package lane

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// rvPanicCall panics in Serve.
type rvPanicCall struct{}

func (rvPanicCall) Serve(context.Context, *Writer) { panic("call") }

// A Take or a call that panics ends its connection, as a handler's panic does on net/http,
// and not the process: the lane serves the next connection, and shuts down.
func TestPanicEndsTheConnection(t *testing.T) {
	l := New(Options{IdleTimeout: time.Minute, Take: func(_ *http.Request, body []byte) (Call, bool) {
		switch string(body) {
		case "take":
			panic("take")
		case "call":
			return rvPanicCall{}, true
		}
		return rvCall{body: string(body)}, true
	}})
	for _, body := range []string{"take", "call"} {
		cli, server := net.Pipe()
		l.Serve(server, nil)
		c := &client{t: t, nc: cli, br: bufio.NewReader(cli)}
		c.write(rawPost("/mcp", body))
		if b, err := io.ReadAll(c.br); err != nil || len(b) > 0 {
			t.Errorf("%s panicked: the client read %q, %v; want the connection closed", body, b, err)
		}
		cli.Close()
	}
	cli, server := net.Pipe()
	l.Serve(server, nil)
	c := &client{t: t, nc: cli, br: bufio.NewReader(cli)}
	c.write(rawPost("/mcp", "ok"))
	if _, got := c.read(); got != "ok" {
		t.Errorf("after the panics: %q", got)
	}
	cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := l.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
