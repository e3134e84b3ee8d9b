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

// An admission is what one POST holds of its session's count. It is given back (release) as
// soon as the POST's answer is about to be written, not when its handler returns: a client
// that sends its next request the moment it has an answer, on another connection, must find
// the count already lowered.
type admission struct {
	f *inflight
	s *session
	n int
}

// release gives the admission's requests back, once; later calls do nothing.
func (a *admission) release() {
	if a.n > 0 {
		a.f.leave(a.s, a.n)
		a.n = 0
	}
}

// take moves the admission out of a (left with nothing to release) into the one it returns.
func (a *admission) take() admission {
	t := *a
	a.n = 0
	return t
}

// admitted counts the requests env holds for s (one, or a batch's) and reports true, with the
// admission to release once they have been answered; or answers with the cap's error and
// reports false.
func (f *inflight) admitted(w http.ResponseWriter, env *envelope, s *session, max int) (a admission, ok bool) {
	n := 0
	for i := range env.msgs {
		if env.msgs[i].IsRequest() {
			n++
		}
	}
	if n == 0 {
		return admission{}, true
	}
	if !f.enter(s, n, max) {
		var id jsonrpc.ID
		if m := env.one(); m != nil {
			id = m.SDKID()
		}
		e := inflightError(s, max)
		writeRPCError(w, http.StatusOK, id, e.Code, e.Message)
		return admission{}, false
	}
	return admission{f: f, s: s, n: n}, true
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
