package acp

import (
	"io"
	"testing"
)

// TestAnnouncer: a session is announced when the response naming it is written, not by a
// notification or a request that names it, nor by another session's response.
func TestAnnouncer(t *testing.T) {
	a := &announcer{w: io.Discard, waiting: map[string]chan struct{}{}}
	ch := a.expect("acp-1")
	done := func() bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"acp-1","update":{"result":1}}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"result":{"sessionId":"acp-2"}}` + "\n",
		`{"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}` + "\n",
	} {
		a.Write([]byte(line))
		if done() {
			t.Fatalf("announced by %s", line)
		}
	}
	a.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"acp-1"}}` + "\n"))
	if !done() {
		t.Fatal("not announced by its session/new response")
	}
}
