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
	sinks map[string]func(ext.Progress)
}

func (p *progressRoutes) add(sink func(ext.Progress)) string {
	token := fmt.Sprintf("%s%d", tokenPrefix, tokenSeq.Add(1))
	p.mu.Lock()
	if p.sinks == nil {
		p.sinks = make(map[string]func(ext.Progress))
	}
	p.sinks[token] = sink
	p.mu.Unlock()
	return token
}

func (p *progressRoutes) remove(token string) {
	p.mu.Lock()
	delete(p.sinks, token)
	p.mu.Unlock()
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
	sink := p.sinks[token]
	p.mu.Unlock()
	if sink != nil {
		sink(ext.Progress{Progress: params.Progress, Total: params.Total, Message: params.Message})
	}
}
