package mcpcap

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one connection the Cap uses: a pooled lease or the injected session.
type conn struct {
	session *mcp.ClientSession
	lease   *connpool.Conn // nil for an injected session
	done    <-chan struct{}
	dead    atomic.Bool
	once    sync.Once
	retired chan struct{} // closed by retire: stops the Cap's watcher of cn unless lost
	lost    atomic.Bool   // set by drop before retire: the connection died under a call
	release func()
}

func newConn(session *mcp.ClientSession, lease *connpool.Conn) *conn {
	cn := &conn{session: session, lease: lease, retired: make(chan struct{})}
	if lease != nil {
		cn.done = lease.Done()
	}
	return cn
}

// retire marks cn dead and gives back what it holds, once.
func (cn *conn) retire() {
	cn.dead.Store(true)
	cn.once.Do(func() {
		close(cn.retired)
		if cn.release != nil {
			cn.release()
		}
	})
}

// why describes why cn ended, with the stderr tail for stdio servers.
func (cn *conn) why() string {
	if cn.lease == nil {
		return ""
	}
	var parts []string
	if err := cn.lease.Err(); err != nil {
		parts = append(parts, err.Error())
	}
	if tail := strings.TrimSpace(cn.lease.StderrTail()); tail != "" && (len(parts) == 0 || !strings.Contains(parts[0], tail)) {
		parts = append(parts, "stderr: "+tail)
	}
	return strings.Join(parts, "; ")
}

// ensure returns a live connection, connecting (with backoff) when there is none.
func (c *Cap) ensure(ctx context.Context) (*conn, error) {
	if cn := c.cur.Load(); cn != nil && !cn.dead.Load() {
		return cn, nil
	}
	return c.connectSlow(ctx)
}

func (c *Cap) connectSlow(ctx context.Context) (*conn, error) {
	select {
	case c.connectSem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("mcp server %q: waiting to connect: %w", c.cfg.Name, ctx.Err())
	case <-c.stop:
		return nil, c.errClosed()
	}
	defer func() { <-c.connectSem }()
	if cn := c.cur.Load(); cn != nil && !cn.dead.Load() {
		return cn, nil // another caller connected while we waited
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, c.errClosed()
	}
	wasDegraded := c.degraded
	if c.degraded && time.Now().Before(c.nextAttempt) {
		err := c.degradedErrLocked()
		c.mu.Unlock()
		return nil, err
	}
	c.connecting = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.connecting = false
		c.mu.Unlock()
	}()

	attempts := c.cfg.Retry.Attempts
	if wasDegraded {
		attempts = 1 // a degraded Cap probes once per interval instead of a whole round
	}
	var lastErr error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			delay := c.cfg.Retry.Backoff << (i - 1)
			c.log.Debug("reconnect backoff", "attempt", i+1, "delay", delay, "err", lastErr)
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("mcp server %q: connect: %w (last error: %v)", c.cfg.Name, ctx.Err(), lastErr)
			case <-c.stop:
				t.Stop()
				return nil, c.errClosed()
			}
		}
		cn, err := c.dial(ctx)
		if err == nil {
			if err := c.onConnected(ctx, cn, wasDegraded); err != nil {
				if errors.Is(err, ext.ErrClosed) {
					return nil, err
				}
				lastErr = err
				continue
			}
			return cn, nil
		}
		if errors.Is(err, ext.ErrClosed) {
			return nil, err
		}
		lastErr = err
		if ctx.Err() != nil || c.injected != nil || !retryableStart(err) {
			break
		}
	}
	if ctx.Err() != nil && c.injected == nil {
		// The caller gave up; that says nothing about the server.
		return nil, fmt.Errorf("mcp server %q: connect: %w (last error: %v)", c.cfg.Name, ctx.Err(), lastErr)
	}
	c.markDegraded(lastErr)
	c.mu.Lock()
	defer c.mu.Unlock()
	return nil, c.degradedErrLocked()
}

// retryableStart reports whether a failed dial is worth another attempt in the same round.
// A start that cannot succeed by trying again at once (connpool.ErrPermanent: no such command,
// no permission, HTTP 401/403/404) is not, and neither is one that ran out of its startup
// timeout (connpool.ErrStartTimeout): repeating it would multiply a hung server's wait by
// Retry.Attempts. The Cap degrades with the error, and a later access tries again.
func retryableStart(err error) bool {
	return !errors.Is(err, connpool.ErrPermanent) && !errors.Is(err, connpool.ErrStartTimeout)
}

// dial obtains a new connection: a lease from the pool, or the injected session once.
func (c *Cap) dial(ctx context.Context) (*conn, error) {
	if c.injected != nil {
		cn := newConn(c.injected, nil)
		c.mu.Lock()
		up := c.everUp
		c.mu.Unlock()
		if up {
			// The injected session was in use and died: it cannot be replaced.
			return nil, fmt.Errorf("mcp server %q: injected client session closed; it cannot be reconnected", c.cfg.Name)
		}
		return cn, nil
	}
	// Close waits for a dial it did not prevent (c.dials) and ends its wait for the pool, so no
	// lease is taken after Close returned. onConnected (or the error below) ends the count.
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, c.errClosed()
	}
	c.dials.Add(1)
	c.mu.Unlock()
	getCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-getCtx.Done():
		}
	}()
	leaseCtx := getCtx
	if cl := ext.ClientFrom(ctx); cl != nil {
		// A session partition's server may ask its client before any call.
		leaseCtx = connpool.WithPeer(getCtx, clientPeer{cl})
	}
	lease, err := c.pool.Get(leaseCtx, c.cfg.Server, c.partition)
	if err != nil {
		c.dials.Done()
		select {
		case <-c.stop:
			return nil, c.errClosed()
		default:
		}
		return nil, fmt.Errorf("mcp server %q: connect: %w", c.cfg.Name, err)
	}
	cn := newConn(lease.Session(), lease)
	stopObs := lease.Observe(c.onNotification)
	pool := c.pool
	cn.release = func() {
		stopObs()
		pool.Release(lease)
	}
	return cn, nil
}

// dormant reports whether c is a Lazy Cap that no use has connected yet: its listings other
// than the static tools are then empty, and answered without starting the server. A closed
// Cap is not dormant: its listings fail with ext.ErrClosed.
func (c *Cap) dormant() bool {
	if !c.cfg.Lazy {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.everUp && !c.closed
}

// testHookInstall, when set by a test, runs in onConnected once cn is installed.
var testHookInstall func(*Cap)

// onConnected installs cn as the live connection, starts its watcher, refreshes the tool
// listing when needed and leaves the degraded state.
func (c *Cap) onConnected(ctx context.Context, cn *conn, wasDegraded bool) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cn.retire()
		c.endDial(cn)
		return c.errClosed()
	}
	reconnect := c.everUp
	c.everUp = true
	// Install cn and count its watcher before unlocking: a Close from now on finds cn in
	// cur (and retires it), and its wg.Wait sees the watcher.
	c.cur.Store(cn)
	if cn.done != nil {
		c.wg.Add(1)
		go c.watch(cn)
	}
	c.mu.Unlock()
	c.endDial(cn)
	if testHookInstall != nil {
		testHookInstall(c)
	}
	// Re-list only when tools were listed before (or are static/degraded); the first listing
	// happens in listTools itself.
	if prev := c.tools.Load(); prev != nil || wasDegraded || reconnect {
		if err := c.refreshTools(ctx, cn, prev, false); err != nil {
			c.cur.CompareAndSwap(cn, nil)
			cn.retire()
			return err
		}
	}
	c.mu.Lock()
	c.degraded = false
	c.lastErr = nil
	c.connectedAt = time.Now()
	if reconnect {
		c.reconnects++
	}
	c.resList.drop()
	c.promptList.drop()
	c.skillList.drop()
	c.mu.Unlock()
	if wasDegraded {
		// The tools are back: announced once Status says connected, so that whoever reads
		// the health on the announcement sees the recovery.
		c.emitToolsChanged()
	}
	if err := c.sendLogLevel(ctx, cn); err != nil {
		c.log.Warn("log level not set", "err", err)
	}
	if !reconnect && c.cfg.Lazy {
		// A Lazy Cap listed no resources, prompts or skills while dormant: whoever holds a
		// view of them must ask again, now that the server can answer.
		if caps := serverCaps(cn); caps == nil || caps.Resources != nil {
			c.emit(ext.ResourcesChanged, "")
			c.emit(ext.SkillsChanged, "")
		}
		if caps := serverCaps(cn); caps == nil || caps.Prompts != nil {
			c.emit(ext.PromptsChanged, "")
			c.emit(ext.CommandsChanged, "")
		}
	}
	if reconnect {
		// A warning, as the loss and a degradation are: an operator sees each reconnect
		// (agentpool_upstream_reconnects_total counts them) without debug logging.
		c.log.Warn("reconnected", "pid", cn.pid())
		// A new server session knows nothing of the old one's subscriptions.
		c.resubscribe(ctx, cn.session)
	}
	return nil
}

// endDial ends the count a pooled dial started, once its lease is installed or given back.
func (c *Cap) endDial(cn *conn) {
	if cn.lease != nil {
		c.dials.Done()
	}
}

func (cn *conn) pid() int {
	if cn.lease == nil {
		return 0
	}
	return cn.lease.PID()
}

// watch marks cn dead when its connection ends. Close, or cn's retirement (its lease given
// back while the pooled client may live on), stops it.
func (c *Cap) watch(cn *conn) {
	defer c.wg.Done()
	select {
	case <-cn.done:
	case <-cn.retired:
		if !cn.lost.Load() {
			return // given back while alive: nothing left to watch
		}
		// A call saw the connection die: wait for the pool to say why.
		select {
		case <-cn.done:
		case <-c.stop:
			return
		}
	case <-c.stop:
		return
	}
	c.log.Warn("connection lost", "pid", cn.pid(), "err", cn.why())
	c.mu.Lock()
	// After a reconnect the error of an older connection is history, not the Cap's state.
	if now := c.cur.Load(); now == nil || now == cn {
		c.lastErr = fmt.Errorf("connection lost: %s", cn.why())
	}
	c.mu.Unlock()
	c.cur.CompareAndSwap(cn, nil)
	cn.retire()
	// Whoever holds a view of the tools must ask again: the next listing reconnects (the
	// same tools: nothing changes for its clients) or finds the server degraded (its tools
	// gone). Without this a cached view offered a dead server's tools until one was called.
	c.emitToolsChanged()
}

// drop retires cn after a call saw its connection die, so the next access reconnects.
func (c *Cap) drop(cn *conn, err error) {
	c.mu.Lock()
	if now := c.cur.Load(); now == nil || now == cn {
		c.lastErr = err // a late report about an older connection is not the Cap's state
	}
	c.mu.Unlock()
	c.cur.CompareAndSwap(cn, nil)
	cn.lost.Store(true)
	cn.retire()
}

// markDegraded records the failure of a whole connect round. The transition to degraded
// empties the toolset and emits tools_changed.
func (c *Cap) markDegraded(err error) {
	c.mu.Lock()
	was := c.degraded
	c.degraded = true
	c.lastErr = err
	c.nextAttempt = time.Now().Add(c.cfg.Retry.Backoff << (c.cfg.Retry.Attempts - 1))
	c.mu.Unlock()
	if !was {
		// A warning: an upstream server that cannot be reached is the state Health reports
		// (and every view's Problems), recovered from by asking again, not a fault of the host.
		c.log.Warn("degraded: server unreachable", "err", err)
		c.tools.Store(nil)
		c.emitToolsChanged()
	}
}

// degradedErrLocked is the error of an access while degraded. It wraps ErrDegraded, not the
// last error (whose connpool marks would read as this access's), except a cap's key: a cap
// reached (ext.LimitKey) stays one.
func (c *Cap) degradedErrLocked() error {
	err := fmt.Errorf("mcp server %q unavailable: %w: %v", c.cfg.Name, ErrDegraded, c.lastErr)
	if key, ok := ext.LimitKey(c.lastErr); ok {
		return &ext.LimitError{Key: key, Err: err}
	}
	return err
}

// connectionLost reports whether err, the error of a call on cn, means the connection died
// under the call. sent is false when the request provably never left, so even a
// non-idempotent call may be repeated. The pool says which (connpool.ErrLost,
// connpool.ErrNotSent); an error it marks neither is the server's answer or the call's own.
func connectionLost(err error, cn *conn) (lost, sent bool) {
	err = cn.callError(err)
	switch {
	case errors.Is(err, connpool.ErrNotSent):
		return true, false
	case errors.Is(err, connpool.ErrLost):
		return true, true
	}
	return false, true
}

// callError marks err, the error of a call on cn, as the pool reads it (connpool.CallError).
func (cn *conn) callError(err error) error {
	if cn.lease != nil {
		return cn.lease.CallError(err)
	}
	return connpool.CallError(err)
}
