package gateway

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// inflight counts the requests of each HTTP session being served, on either path, so that one
// client firing requests without waiting for answers holds at most Options.MaxInflight calls
// (and their memory): one more is answered at once with an error, never queued. Notifications
// and responses are not counted: they are answered at once.
type inflight struct {
	mu sync.Mutex
	n  map[*session]int // only sessions with a request being served
}

// enter counts one more request of s and reports true, or reports false when s already has max
// (max <= 0: no cap). A true is paired with one leave.
func (f *inflight) enter(s *session, max int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if max > 0 && f.n[s] >= max {
		return false
	}
	if f.n == nil {
		f.n = map[*session]int{}
	}
	f.n[s]++
	return true
}

// leave ends a request enter counted.
func (f *inflight) leave(s *session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[s]--; f.n[s] <= 0 {
		delete(f.n, s)
	}
}

// admitted counts the request env holds for s and reports true, with release to call when it
// has been served; or answers it with the cap's error and reports false.
func (h *sessionHTTP) admitted(w http.ResponseWriter, env *envelope, s *session) (release func(), ok bool) {
	m := env.one()
	if m == nil || !m.IsRequest() {
		return func() {}, true
	}
	max := h.g.opts.MaxInflight
	if !h.inflight.enter(s, max) {
		e := inflightError(s, max)
		writeRPCError(w, http.StatusOK, m.SDKID(), e.Code, e.Message)
		return nil, false
	}
	return func() { h.inflight.leave(s) }, true
}

// inflightError answers a request of s past max in flight.
func inflightError(s *session, max int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: codeServerError, Message: fmt.Sprintf(
		"session %s has %d requests in flight, the most server.max_inflight allows: wait for an answer before sending more", s.id, max)}
}
