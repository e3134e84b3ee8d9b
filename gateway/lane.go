package gateway

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/agentpool/agentpool/gateway/internal/lane"
	"github.com/agentpool/agentpool/internal/wire"
)

// A connection that brings a tools/call the pass-through path answers moves, after that
// answer, from net/http to the gateway's lane (gateway/internal/lane) when its server serves
// Routes.Listen's listener: the lane reads the connection's next requests itself and answers
// those that pass through here in one write, with none of net/http's per-request work, and
// gives the connection back to net/http, unread, at the first request that does not. So
// net/http still answers everything else, malformed and unusual requests included; a call
// on the lane passes the checks a POST passes on net/http (Host, Origin, the static token,
// the body's size, the session's, the in-flight cap), in the same functions. A gateway with
// OAuth (Options.Auth) or in stateless mode keeps its connections on net/http.

// Listen returns the listener for the http.Server that serves rt: inner's connections, on
// which rt's calls passed through move to its lane, and those the lane gives back. idle and
// header are the server's IdleTimeout and ReadHeaderTimeout, which the lane keeps. The
// connections' writes must be bounded (serve's writestall): the lane writes an answer
// with no deadline of its own. shutdown stops the lane as http.Server.Shutdown stops the
// server; call both.
func (rt *Routes) Listen(inner net.Listener, idle, header time.Duration) (ln net.Listener, shutdown func(context.Context) error) {
	l := lane.New(lane.Options{Take: rt.takeLane, IdleTimeout: idle, HeaderTimeout: header})
	rt.pool.lane.Store(l)
	rt.mu.Lock()
	rt.lane = l
	for _, a := range rt.agents {
		a.g.lane.Store(l)
	}
	rt.mu.Unlock()
	return l.Listen(inner), l.Shutdown
}

// onLane reports whether g's calls may be the lane's: not in stateless mode (a request id
// names no call) and without OAuth (whose refusals the lane cannot answer).
func (g *Gateway) onLane() bool { return g.stateless == nil && g.opts.Auth == nil }

// toLane moves the connection of r, a pass-through call answered, to g's lane: when g has
// one, onLane, and the connection stays open (HTTP/1.1, no Connection: close).
func (g *Gateway) toLane(w http.ResponseWriter, r *http.Request) {
	l := g.lane.Load()
	if l == nil || !g.onLane() || r.ProtoMajor != 1 || r.ProtoMinor != 1 || r.Close {
		return
	}
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	nc, rw, err := rc.Hijack()
	if err != nil {
		return
	}
	l.Serve(nc, rw.Reader)
}

// gatewayAt returns the Gateway serving path, or nil.
func (rt *Routes) gatewayAt(path string) *Gateway {
	r, _, _ := rt.route(path)
	return r.g
}

// takeLane is the lane's Options.Take: a POST of a tools/call the pass-through path answers,
// which has passed the checks net/http's route applies to it; anything else is net/http's.
func (rt *Routes) takeLane(r *http.Request, body []byte) (lane.Call, bool) {
	g := rt.gatewayAt(r.URL.Path)
	if g == nil || !g.onLane() || !g.passesUserChecks(r) {
		return nil, false
	}
	if max := g.opts.MaxBodyBytes; max > 0 && int64(len(body)) > max {
		return nil, false
	}
	s := g.lookup(r.Header.Get(sessionHeader))
	if s == nil || !s.passing() || !s.pass.ok.Load() {
		return nil, false
	}
	if wire.IsBatch(body) {
		return nil, false
	}
	m, err := wire.Decode(body) // as decodeEnvelope's one, without an envelope on the heap
	if err != nil || m.Method != "tools/call" || !m.IsRequest() {
		return nil, false
	}
	pc, ok := s.passable(r.Header, &m)
	if !ok || !g.inflight.enter(s, 1, g.opts.MaxInflight) {
		return nil, false
	}
	c := &laneCall{s: s, pc: pc, a: admission{f: &g.inflight, s: s, n: 1}}
	if !s.startPass(r.Context(), &c.pc) {
		c.a.release()
		return nil, false
	}
	s.idle.begin()
	return c, true
}

// laneCall is a call the lane took.
type laneCall struct {
	s  *session
	pc passCall
	a  admission
}

// Serve makes the call and writes its answer. ctx is the one Take's request had, which the
// call's context (startPass) is of.
func (c *laneCall) Serve(ctx context.Context, w *lane.Writer) {
	s := c.s
	defer s.idle.end()
	defer c.a.release() // callPassed released it before the answer: this is for a panic
	status, buf := s.callEnded(ctx, &c.pc, &c.a)
	if status == http.StatusAccepted {
		_ = w.Write(status, nil, nil)
	} else {
		_ = w.Write(status, s.laneHeader(), *buf)
	}
	putAnswer(buf)
}

// laneHeader is the header lines of a session's answers on the lane, made at its first.
func (s *session) laneHeader() []byte {
	if h := s.pass.header.Load(); h != nil {
		return *h
	}
	h := []byte("Content-Type: application/json\r\n" + sessionHeader + ": " + s.id + "\r\n")
	s.pass.header.Store(&h)
	return h
}
