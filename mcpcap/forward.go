package mcpcap

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file forwards what passes between the server and the client of a call besides the
// call itself: the server's requests to its client (sampling, elicitation, roots) go to the
// ext.Client of the call in flight (connpool routes them), and its log messages go to the
// Cap's log observers.

var (
	_ ext.LogSource     = (*Cap)(nil)
	_ ext.RawToolCaller = (*Cap)(nil)
)

// clientPeer is a caller's ext.Client as connpool sees it.
type clientPeer struct{ c ext.Client }

func (p clientPeer) PeerID() string { return p.c.SessionID() }

func (p clientPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case connpool.MethodCreateMessage:
		return p.c.CreateMessage(ctx, params)
	case connpool.MethodElicit:
		return p.c.Elicit(ctx, params)
	case connpool.MethodListRoots:
		return p.c.ListRoots(ctx, params)
	}
	return nil, fmt.Errorf("%s: not forwarded to a client", method)
}

// track records a call in flight on cn on behalf of the client ctx carries (none: a call made
// without one), so that the server's requests during it reach that client. An injected
// session's owner routes its requests itself.
func track(ctx context.Context, cn *conn) connpool.Tracked {
	if cn.lease == nil {
		return connpool.Tracked{}
	}
	var p connpool.Peer
	if c := ext.ClientFrom(ctx); c != nil {
		p = clientPeer{c}
	}
	return cn.lease.Track(p)
}

// logLevels are MCP's log levels, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logObservers are the Cap's log observers.
type logObservers struct {
	mu    sync.Mutex
	next  uint64
	fns   map[uint64]func(ext.LogMessage)
	level string // the most verbose level asked for; "" until one is
}

// ObserveLog calls fn with every log message the server sends (ext.LogSource), in order.
func (c *Cap) ObserveLog(fn func(ext.LogMessage)) (stop func()) {
	o := &c.logs
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fns == nil {
		o.fns = make(map[uint64]func(ext.LogMessage))
	}
	o.next++
	id := o.next
	o.fns[id] = fn
	return func() {
		o.mu.Lock()
		delete(o.fns, id)
		o.mu.Unlock()
	}
}

// SetLogLevel asks the server for messages of level and above (logging/setLevel), unless a
// more verbose level was asked for already: the Cap's observers (a gateway's sessions, each
// at its own level) filter. The level is sent again on every new connection; a server that
// does not declare logging is not asked.
func (c *Cap) SetLogLevel(ctx context.Context, level string) error {
	rank := slices.Index(logLevels, level)
	if rank < 0 {
		return fmt.Errorf("mcp server %q: log level %q: not one of %v", c.cfg.Name, level, logLevels)
	}
	if c.isClosed() {
		return c.errClosed()
	}
	o := &c.logs
	o.mu.Lock()
	if o.level != "" && slices.Index(logLevels, o.level) <= rank {
		o.mu.Unlock()
		return nil
	}
	o.level = level
	o.mu.Unlock()
	cn := c.cur.Load()
	if cn == nil || cn.dead.Load() {
		return nil // sent when it connects
	}
	return c.sendLogLevel(ctx, cn)
}

// sendLogLevel sends the level asked for, if any, to cn's server.
func (c *Cap) sendLogLevel(ctx context.Context, cn *conn) error {
	c.logs.mu.Lock()
	level := c.logs.level
	c.logs.mu.Unlock()
	if level == "" {
		return nil
	}
	if caps := serverCaps(cn); caps == nil || caps.Logging == nil {
		return nil
	}
	// Caps sharing a pooled connection share the server's session, and so its one level:
	// a Cap's less verbose level must not replace a more verbose one another Cap set.
	sl := levelOf(cn.session)
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.level != "" && slices.Index(logLevels, sl.level) <= slices.Index(logLevels, level) {
		return nil
	}
	if err := cn.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		return fmt.Errorf("mcp server %q: logging/setLevel %s: %w", c.cfg.Name, level, err)
	}
	sl.level = level
	return nil
}

// sessionLevel is the log level sent to one server session; mu is held across the request,
// so the server's level follows the record.
type sessionLevel struct {
	mu    sync.Mutex
	level string
}

// sessionLevels holds the level of each server session, across the Caps sharing it. Weak
// keys: an entry goes with its session.
var sessionLevels struct {
	mu sync.Mutex
	m  map[weak.Pointer[mcp.ClientSession]]*sessionLevel
}

func levelOf(cs *mcp.ClientSession) *sessionLevel {
	k := weak.Make(cs)
	sessionLevels.mu.Lock()
	defer sessionLevels.mu.Unlock()
	if l := sessionLevels.m[k]; l != nil {
		return l
	}
	if sessionLevels.m == nil {
		sessionLevels.m = make(map[weak.Pointer[mcp.ClientSession]]*sessionLevel)
	}
	l := &sessionLevel{}
	sessionLevels.m[k] = l
	runtime.AddCleanup(cs, func(k weak.Pointer[mcp.ClientSession]) {
		sessionLevels.mu.Lock()
		delete(sessionLevels.m, k)
		sessionLevels.mu.Unlock()
	}, k)
	return l
}

// deliverLog hands a log message to the observers.
func (c *Cap) deliverLog(p *mcp.LoggingMessageParams) {
	if p == nil {
		return
	}
	m := ext.LogMessage{Level: string(p.Level), Logger: p.Logger}
	if p.Data != nil {
		if b, err := json.Marshal(p.Data); err == nil {
			m.Data = b
		}
	}
	c.logs.mu.Lock()
	fns := make([]func(ext.LogMessage), 0, len(c.logs.fns))
	for _, fn := range c.logs.fns {
		fns = append(fns, fn)
	}
	c.logs.mu.Unlock()
	for _, fn := range fns {
		fn(m)
	}
}
