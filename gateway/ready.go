package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentpool/agentpool/ext"
)

// ErrNotReady is the error of a session whose own servers were not ready within
// Options.OpenTimeout (one still starting, or waiting at a full connection pool for another's
// start to end).
var ErrNotReady = errors.New("the session's servers were not ready")

// awaitOwn lists the tools of the servers registered for the session itself (OpenSession's),
// which starts them, and gives up after Options.OpenTimeout. Session-scoped servers of
// clients that vanished without DELETE hold their pool slots until the idle timeout; once the
// pool is at pool.max_total_clients (or the session's own partition at pool.max_clients) a
// new one fails at once, naming the key, unless a start in progress may free a slot, and a
// server slow to start would hold its client, with nothing said, as long as the request
// lasts. Giving up refuses the session with the servers' errors (connpool names the exhausted
// pool and its limit); servers that all listed their tools make the session ready, even when
// OpenTimeout has passed by the time they are counted. A server refused at once by a cap
// (ext.LimitKey) refuses the session with that cap (an *ext.LimitError): admitted, the
// session would be served without it. A server that fails otherwise is left to the view,
// which reports it.
func (g *Gateway) awaitOwn(ctx context.Context, scope ext.Scope) error {
	var own []ext.ToolProvider
	for _, r := range g.reg.Registrations(scope) {
		if r.Level != ext.LevelSession || r.Slot.SessionID != scope.SessionID {
			continue
		}
		if tp, ok := r.Capability.(ext.ToolProvider); ok {
			own = append(own, tp)
		}
	}
	if len(own) == 0 {
		return nil
	}
	octx, cancel := context.WithTimeout(ctx, g.opts.OpenTimeout)
	defer cancel()
	errs := make([]error, len(own))
	var wg sync.WaitGroup
	for i, tp := range own {
		wg.Go(func() { _, errs[i] = tp.Tools(octx) })
	}
	wg.Wait()
	for _, err := range errs {
		if key, ok := ext.LimitKey(err); ok && ctx.Err() == nil {
			return &ext.LimitError{Key: key, Err: err}
		}
	}
	failed := errors.Join(errs...)
	if failed == nil || octx.Err() == nil || ctx.Err() != nil {
		// Every server listed its tools (whenever this check runs), a failure the view
		// reports, or the client gave up: nothing to say to it.
		return nil
	}
	return fmt.Errorf("%w within %s: %w", ErrNotReady, g.opts.OpenTimeout, failed)
}
