package gateway

import (
	"context"
	"encoding/json"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Log messages of the upstream servers reach every session that sees the server, at the
// session's own level (the go-sdk's ServerSession.Log filters by the level the client set,
// and sends nothing before it set one). A message that arrives while the session has a call in
// flight to that server is sent on the call's stream, ahead of its result, as the server
// would have sent it directly.

// setLevel is the receiving middleware of logging/setLevel: after the go-sdk recorded the
// session's level, each server the session sees is asked for messages at that level.
func (s *session) setLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "logging/setLevel" || err != nil {
			return res, err
		}
		p, ok := req.GetParams().(*mcp.SetLoggingLevelParams)
		if !ok || p == nil {
			return res, err
		}
		level := string(p.Level)
		s.logMu.Lock()
		s.logLevel = level
		s.pass.ok.Store(false) // log messages during a call go on its stream: the go-sdk path
		srcs := make([]ext.LogSource, 0, len(s.logStops))
		for src := range s.logStops {
			srcs = append(srcs, src)
		}
		s.logMu.Unlock()
		for _, src := range srcs {
			if e := src.SetLogLevel(ctx, level); e != nil {
				s.g.log.Warn("log level not forwarded", "session", s.id, "err", e)
			}
		}
		return res, err
	}
}

// syncLogs observes the log sources the session sees now, and stops observing those it no
// longer sees. A new source is asked for the session's level, if it set one.
func (s *session) syncLogs(ctx context.Context) {
	seen := map[ext.LogSource]bool{}
	for _, r := range s.g.reg.Registrations(s.scope) {
		if src, ok := r.Capability.(ext.LogSource); ok {
			seen[src] = true
		}
	}
	s.logMu.Lock()
	if s.logStops == nil {
		s.logStops = make(map[ext.LogSource]func())
	}
	var added []ext.LogSource
	for src, stop := range s.logStops {
		if !seen[src] {
			stop()
			delete(s.logStops, src)
		}
	}
	for src := range seen {
		if _, ok := s.logStops[src]; !ok {
			s.logStops[src] = src.ObserveLog(func(m ext.LogMessage) { s.deliverLog(src, m) })
			added = append(added, src)
		}
	}
	level := s.logLevel
	s.logMu.Unlock()
	if level == "" {
		return
	}
	for _, src := range added {
		if err := src.SetLogLevel(ctx, level); err != nil {
			s.g.log.Warn("log level not forwarded", "session", s.id, "err", err)
		}
	}
}

// stopLogs stops observing every log source.
func (s *session) stopLogs() {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	for src, stop := range s.logStops {
		stop()
		delete(s.logStops, src)
	}
}

// deliverLog queues a log message of src for the client.
func (s *session) deliverLog(src ext.LogSource, m ext.LogMessage) {
	ss := s.conn()
	if ss == nil {
		return
	}
	ctx := s.inFlight(src)
	params := &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(m.Level), Logger: m.Logger}
	if len(m.Data) > 0 {
		params.Data = json.RawMessage(m.Data)
	}
	s.out.send(len(m.Data)+len(m.Logger), func() {
		if err := ss.Log(ctx, params); err != nil {
			s.g.log.Debug("log message not sent", "session", s.id, "err", err)
		}
	})
}

// flight records a call in flight to capability owner, until landed.
func (s *session) flight(ctx context.Context, owner any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flights == nil {
		s.flights = make(map[any]flying)
	}
	f := s.flights[owner]
	if f.one == nil {
		f.one = ctx
	} else {
		f.more = append(f.more, ctx)
	}
	s.flights[owner] = f
}

// landed ends the record flight made.
func (s *session) landed(ctx context.Context, owner any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.flights[owner]
	switch {
	case f.one == ctx && len(f.more) == 0:
		delete(s.flights, owner)
		return
	case f.one == ctx:
		f.one = f.more[0]
		f.more = append(f.more[:0], f.more[1:]...)
	default:
		for i, c := range f.more {
			if c == ctx {
				f.more = append(f.more[:i], f.more[i+1:]...)
				break
			}
		}
	}
	s.flights[owner] = f
}

// flying are the contexts of the calls in flight to one capability, in the order they began:
// one, then more (no slice for one call at a time).
type flying struct {
	one  context.Context
	more []context.Context
}

// inFlight returns the context of the latest call in flight to owner, or a background one.
func (s *session) inFlight(owner any) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.flights[owner]
	if n := len(f.more); n > 0 {
		return f.more[n-1]
	}
	if f.one != nil {
		return f.one
	}
	return context.Background()
}
