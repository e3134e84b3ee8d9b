package connpool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Methods a server may send to its client, which the pool forwards to a Peer.
const (
	MethodCreateMessage = "sampling/createMessage"
	MethodElicit        = "elicitation/create"
	MethodListRoots     = "roots/list"
)

// ErrNoPeer and ErrAmbiguousPeer are the errors of a server-to-client request that the pool
// cannot route: no call in flight names a client, or calls of several clients are in flight.
var (
	ErrNoPeer        = errors.New("no client to ask")
	ErrAmbiguousPeer = errors.New("several clients could be asked")
)

// CodeUnroutable is the JSON-RPC error code a server gets for a request the pool cannot
// route (in the implementation-defined server-error range).
const CodeUnroutable = -32000

// Peer is the client a server's requests (sampling, elicitation, roots) are forwarded to: the
// client of the call in flight that caused them. Params and results are the requests' JSON.
type Peer interface {
	// PeerID identifies the client: calls with the same PeerID come from one client.
	PeerID() string
	// Request forwards one request (MethodCreateMessage, MethodElicit, MethodListRoots).
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// peers records the calls in flight on a client and the Peer of each.
type peers struct {
	mu     sync.Mutex
	next   uint64
	flight map[uint64]Peer // nil Peer: a call made without a client
	last   Peer            // the last non-nil Peer of a call (session partitions only)
}

// Track records a call in flight on this lease's client on behalf of p (nil: a call with no
// client to ask, such as one from the command line), until its Tracked's Done. A request the
// server sends while calls are in flight goes to their Peer when they all have the same
// one; see the package doc for the rule.
func (c *Conn) Track(p Peer) Tracked {
	ps := &c.c.peers
	ps.mu.Lock()
	if ps.flight == nil {
		ps.flight = make(map[uint64]Peer)
	}
	ps.next++
	id := ps.next
	ps.flight[id] = p
	if p != nil && c.c.key.partition != GlobalPartition {
		ps.last = p
	}
	ps.mu.Unlock()
	return Tracked{ps: ps, id: id}
}

// Tracked is a call Track recorded.
type Tracked struct {
	ps *peers
	id uint64
}

// Done ends the record of the call. It is idempotent, and does nothing for the zero Tracked.
func (t Tracked) Done() {
	if t.ps == nil {
		return
	}
	t.ps.mu.Lock()
	delete(t.ps.flight, t.id) // ids are never reused: a second Done finds none
	t.ps.mu.Unlock()
}

type peerKey struct{}

// WithPeer returns ctx carrying p as the client on whose behalf a Get is made. Get gives it to
// a client of a session partition that has no Peer yet, so that the server's requests made
// before any call (roots/list as soon as it is initialized, as many servers do) reach the one
// client that partition has. A Get for the global partition ignores it: a shared server's
// client is known only from its calls.
func WithPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// adopt makes p, if any, the Peer of a session partition's client that has none.
func (c *client) adopt(ctx context.Context) {
	p, _ := ctx.Value(peerKey{}).(Peer)
	if p == nil || c.key.partition == GlobalPartition {
		return
	}
	c.peers.mu.Lock()
	if c.peers.last == nil {
		c.peers.last = p
	}
	c.peers.mu.Unlock()
}

// route picks the Peer of a server-to-client request: the one client with calls in flight;
// in a session partition, with none in flight, the last client that made a call (a session's
// own server has only that session as its client).
func (c *client) route(method string) (Peer, error) {
	ps := &c.peers
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var only Peer
	ids := map[string]bool{}
	anon := false
	for _, p := range ps.flight {
		if p == nil {
			anon = true
			continue
		}
		ids[p.PeerID()] = true
		only = p
	}
	switch {
	case len(ids) == 1 && !anon:
		return only, nil
	case len(ids)+btoi(anon) > 1:
		return nil, fmt.Errorf("server %q sent %s while calls of %d clients were in flight to it; "+
			"a server shared by several sessions cannot say which one it asks (make it scope: session): %w",
			c.label(), method, len(ids)+btoi(anon), ErrAmbiguousPeer)
	case anon:
		return nil, fmt.Errorf("server %q sent %s during a call made without a client: %w", c.label(), method, ErrNoPeer)
	case ps.last != nil:
		return ps.last, nil
	}
	return nil, fmt.Errorf("server %q sent %s with no call in flight to it: %w", c.label(), method, ErrNoPeer)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// forward sends a server's request to the Peer route picks, and decodes the answer into out.
// An unroutable request gets a JSON-RPC error the server can read; a Peer's JSON-RPC error
// passes through.
func (c *client) forward(ctx context.Context, method string, params any, out any) error {
	p, err := c.route(method)
	if err != nil {
		c.pool.opts.Logger.Warn("connpool: server request not forwarded", "server", c.label(), "method", method, "err", err)
		return &jsonrpc.Error{Code: CodeUnroutable, Message: err.Error()}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("connpool: server %q: %s: encode params: %w", c.label(), method, err)
	}
	res, err := p.Request(ctx, method, raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("connpool: server %q: %s: decode the client's result: %w", c.label(), method, err)
	}
	return nil
}

// forwardRequests forwards the server's requests to its client, ahead of the go-sdk's own
// handlers: those would answer roots/list from the client's own (empty) list, and check an
// elicitation's schema more strictly than the client it is for may (the client decides).
func (c *client) forwardRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		var res mcp.Result
		switch method {
		case MethodCreateMessage:
			res = &mcp.CreateMessageWithToolsResult{}
		case MethodElicit:
			res = &mcp.ElicitResult{}
		case MethodListRoots:
			res = &mcp.ListRootsResult{}
		default:
			return next(ctx, method, req)
		}
		if err := c.forward(ctx, method, req.GetParams(), res); err != nil {
			return nil, err
		}
		return res, nil
	}
}
