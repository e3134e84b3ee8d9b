package gateway_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// `agentpool serve` built as users build it (no race detector: its hop reads and writes with
// raw system calls, internal/rawio) passes calls through to a stdio upstream and to an HTTP
// one, from sessions calling at once, with answers of a few bytes and of a megabyte (many
// times a pipe's and a socket's buffers, so that writes and reads wait for room and data on
// every side of the hop): each answer is its own call's.
func TestServeProcessPassesCallsThrough(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve and upstream processes")
	}
	for _, tc := range []struct {
		name string
		spec func(testing.TB) string
	}{
		{"stdio", benchSpecStdio},
		{"http", func(t testing.TB) string { return "{url: " + benchFaultHTTP(t) + "}" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startServe(t, tc.spec(t))
			sessions := benchConnect(t, p.url, benchHTTPClient(t), 4)
			big := strings.Repeat("0123456789abcdef", 1<<16)
			var wg sync.WaitGroup
			for i, cs := range sessions {
				wg.Go(func() {
					for j := range 25 {
						text := fmt.Sprintf("session %d call %d", i, j)
						if j%8 == 7 {
							text += big
						}
						if err := echoOnce(cs, text); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

// echoOnce calls the echo tool with text and fails unless the answer is text.
func echoOnce(cs *mcp.ClientSession, text string) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: benchTool, Arguments: map[string]any{"text": text}})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("echo of %.40q: %+v", text, res)
	}
	got, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Errorf("echo of %.40q answered %T", text, res.Content[0])
	}
	if got.Text != text {
		return fmt.Errorf("echo of %.40q (%d bytes) answered %.40q (%d bytes)", text, len(text), got.Text, len(got.Text))
	}
	return nil
}
