package mcpcap

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tokenPrefix makes this process's progress tokens unlikely to equal a token some other
// client of a shared HTTP server uses.
var tokenPrefix = func() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "agentpool-" + hex.EncodeToString(b) + "-"
}()

// tokenSeq numbers progress tokens across every Cap: Caps sharing a pooled connection all see
// its progress notifications, and each must recognise only its own calls' tokens.
var tokenSeq atomic.Uint64

// progressRoutes maps the progress tokens of calls in flight to their sinks.
type progressRoutes struct {
	mu    sync.Mutex
	sinks map[string]*progressRoute
}

// progressRoute is one call's sink. Its mutex is held while the sink runs, so remove, which
// takes it, returns only once no call of the sink is running, and none starts afterwards: a call
// cancelled while its progress was being handed on does not return before that has finished.
type progressRoute struct {
	mu   sync.Mutex
	sink func(ext.Progress) // nil once removed
}

func (p *progressRoutes) add(sink func(ext.Progress)) string {
	token := fmt.Sprintf("%s%d", tokenPrefix, tokenSeq.Add(1))
	p.mu.Lock()
	if p.sinks == nil {
		p.sinks = make(map[string]*progressRoute)
	}
	p.sinks[token] = &progressRoute{sink: sink}
	p.mu.Unlock()
	return token
}

// remove ends the route of token; when it returns the sink is not running and is never called
// again.
func (p *progressRoutes) remove(token string) {
	p.mu.Lock()
	r := p.sinks[token]
	delete(p.sinks, token)
	p.mu.Unlock()
	if r != nil {
		r.mu.Lock()
		r.sink = nil
		r.mu.Unlock()
	}
}

// deliver hands a progress notification to the call whose token it carries. Tokens of other
// Caps' calls, and notifications after the call returned, are dropped.
func (p *progressRoutes) deliver(params *mcp.ProgressNotificationParams) {
	if params == nil {
		return
	}
	token, ok := params.ProgressToken.(string)
	if !ok {
		return
	}
	p.mu.Lock()
	r := p.sinks[token]
	p.mu.Unlock()
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sink != nil {
		r.sink(ext.Progress{Progress: params.Progress, Total: params.Total, Message: params.Message})
	}
}

// monotonicProgress hands one call's progress to its sink so that it only increases across the
// call's attempts, as MCP requires of progress under one token: a call retried on a new
// connection starts again on its server, from its first value. Each retried attempt's values,
// and its total, are offset by the last value handed on before it; a value of a retried
// attempt that is still not above the last one handed on is dropped.
type monotonicProgress struct {
	mu      sync.Mutex
	sink    func(ext.Progress)
	last    float64 // the last value handed on
	offset  float64 // added to the current attempt's values
	retried bool
}

func (m *monotonicProgress) deliver(p ext.Progress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p.Progress += m.offset
	if p.Total > 0 {
		p.Total += m.offset
	}
	if m.retried && p.Progress <= m.last {
		return
	}
	m.last = p.Progress
	m.sink(p)
}

// retry starts the next attempt's values after the last one handed on.
func (m *monotonicProgress) retry() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.offset, m.retried = m.last, true
}
