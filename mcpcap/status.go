package mcpcap

import (
	"context"

	"github.com/agentpool/agentpool/ext"
	"time"
)

// State is a Cap's connection state.
type State string

// The states Status reports.
const (
	// StateIdle: not connected (never used, lazy, or waiting to reconnect on next access).
	StateIdle State = "idle"
	// StateConnecting: a connect attempt (the server's start, or a reconnect) is running.
	StateConnecting State = "connecting"
	// StateConnected: a live connection.
	StateConnected State = "connected"
	// StateDegraded: the last connect round failed; tools are withheld until a retry succeeds.
	StateDegraded State = "degraded"
	// StateClosed: Close was called.
	StateClosed State = "closed"
)

// Status is a snapshot of a Cap's health for the CLI and the status page.
type Status struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// LastError is the last connection or call-transport error, with the stderr tail.
	LastError string `json:"lastError,omitempty"`
	// PID is the server's process id for a pooled stdio connection, else 0.
	PID int `json:"pid,omitempty"`
	// Tools is how many tools the Cap serves now.
	Tools int `json:"tools"`
	// ConnectedAt is when the current connection was made.
	ConnectedAt time.Time `json:"connectedAt,omitzero"`
	// Reconnects counts successful connections after the first.
	Reconnects int `json:"reconnects"`
	// NextAttempt is the earliest retry while degraded.
	NextAttempt time.Time `json:"nextAttempt,omitzero"`
}

// Status reports the Cap's state. It does no I/O.
func (c *Cap) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Status{Name: c.cfg.Name, State: StateIdle, Reconnects: c.reconnects}
	if c.lastErr != nil {
		s.LastError = c.lastErr.Error()
	}
	if ts := c.tools.Load(); ts != nil {
		s.Tools = len(ts.entries)
	}
	switch cn := c.cur.Load(); {
	case c.closed:
		s.State = StateClosed
	case c.degraded:
		s.State = StateDegraded
		s.NextAttempt = c.nextAttempt
	case cn != nil && !cn.dead.Load():
		s.State = StateConnected
		s.PID = cn.pid()
		s.ConnectedAt = c.connectedAt
	case c.connecting:
		s.State = StateConnecting
	}
	return s
}

// Ping checks the live connection (connecting if needed) with an MCP ping.
func (c *Cap) Ping(ctx context.Context) error {
	cn, err := c.ensure(ctx)
	if err != nil {
		return err
	}
	if err := cn.session.Ping(ctx, nil); err != nil {
		c.noteCallError(cn, err)
		return err
	}
	return nil
}

// Health reports the Cap's state in the terms of ext.HealthReporter. It does no I/O.
func (c *Cap) Health() ext.Health {
	st := c.Status()
	h := ext.Health{Err: st.LastError}
	switch st.State {
	case StateConnected:
		h.State = ext.HealthOK
	case StateDegraded:
		h.State = ext.HealthDegraded
	case StateClosed:
		h.State = ext.HealthClosed
	default:
		h.State = ext.HealthIdle
	}
	return h
}
