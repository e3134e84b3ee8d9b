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
// and responses are not counted: they are answered at once. In stateless mode each POST is
// counted on its own (there is no session); over stdio, stdioframe counts.
type inflight struct {
	mu sync.Mutex
	n  map[*session]int // only sessions with a request being served
}

// enter counts n more requests of s and reports true, or reports false when that would make
// more than max (max <= 0: no cap). A true is paired with one leave of n.
func (f *inflight) enter(s *session, n, max int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if max > 0 && f.n[s]+n > max {
		return false
	}
	if f.n == nil {
		f.n = map[*session]int{}
	}
	f.n[s] += n
	return true
}

// leave ends n requests enter counted (none: nothing to do).
func (f *inflight) leave(s *session, n int) {
	if n == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[s] -= n; f.n[s] <= 0 {
		delete(f.n, s)
	}
}

// admitted counts the requests env holds for s (one, or a batch's) and reports true, with
// their number n, for leave once they have been served; or answers with the cap's error and
// reports false.
func (f *inflight) admitted(w http.ResponseWriter, env *envelope, s *session, max int) (n int, ok bool) {
	for i := range env.msgs {
		if env.msgs[i].IsRequest() {
			n++
		}
	}
	if n == 0 {
		return 0, true
	}
	if !f.enter(s, n, max) {
		var id jsonrpc.ID
		if m := env.one(); m != nil {
			id = m.SDKID()
		}
		e := inflightError(s, max)
		writeRPCError(w, http.StatusOK, id, e.Code, e.Message)
		return 0, false
	}
	return n, true
}

// inflightError answers a request of s past max in flight.
func inflightError(s *session, max int) *jsonrpc.Error {
	if s.stateless {
		return &jsonrpc.Error{Code: codeServerError, Message: fmt.Sprintf(
			"this POST holds more than the %d requests server.max_inflight allows at once: send them in smaller batches", max)}
	}
	who := "session " + s.id
	return &jsonrpc.Error{Code: codeServerError, Message: fmt.Sprintf(
		"%s has %d requests in flight, the most server.max_inflight allows: wait for an answer before sending more", who, max)}
}
