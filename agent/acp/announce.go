package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// announcer is the connection's writer. It tells a new session when the response to its
// session/new has been written: a client such as Zed drops a session/update for a session id
// it has not been given yet, so the first available_commands_update must follow that response,
// and the SDK writes the response only after NewSession has returned. The SDK writes each
// message with one Write of one line, under its own lock, so a line is a whole message.
type announcer struct {
	w io.Writer

	mu      sync.Mutex
	waiting map[string]chan struct{} // session id → closed once its session/new response is out
}

// expect returns a channel closed once the session/new response naming id has been written.
func (a *announcer) expect(id string) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch := make(chan struct{})
	a.waiting[id] = ch
	return ch
}

// drop forgets id, whose response will not be written (session/new failed).
func (a *announcer) drop(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiting, id)
}

func (a *announcer) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	if err == nil {
		a.wrote(p)
	}
	return n, err
}

var resultKey = []byte(`"result"`)

func (a *announcer) wrote(line []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.waiting) == 0 || !bytes.Contains(line, resultKey) {
		return
	}
	var m struct {
		Method string `json:"method"`
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "" {
		return
	}
	if ch, ok := a.waiting[m.Result.SessionID]; ok {
		close(ch)
		delete(a.waiting, m.Result.SessionID)
	}
}
