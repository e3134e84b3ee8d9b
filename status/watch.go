package status

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
)

// Transition is a change of an MCP server's health that Watch reports.
type Transition struct {
	// Server names the server as the status page does: its name for a pool server,
	// agents.<agent>.<name> for a server an agent declares of its own.
	Server string
	// Recovered is false when the server degraded (it failed at start, or could not
	// reconnect), true when it is connected again after that.
	Recovered bool
	// Err is the degraded server's last error (mcpcap.Status.LastError); "" for a recovery.
	Err string
}

// WatchOptions say whose servers Watch follows and whom it tells.
type WatchOptions struct {
	// Agents returns, for the host's state in use, the agents whose own servers
	// (agents.<name>.mcp_servers) are watched besides the pool's. Nil watches the pool's only.
	Agents func(*host.State) []string
	// Report is told each transition, one call at a time. Required.
	Report func(Transition)
}

// serverKey tells a server from every other one Watch follows: an agent's server from a pool
// server, and from another agent's, of the same name.
type serverKey struct{ agent, name string }

func (k serverKey) label() string {
	if k.agent == "" {
		return k.name
	}
	return "agents." + k.agent + "." + k.name
}

// Watch reports each transition of the health of h's pool servers and of opts.Agents' own
// servers, until ctx ends or h closes: one Transition when a server degrades, one when it is
// connected again, each once. Whatever changes a server's health wakes it: it follows the
// changes of the pool's scope and of each watched agent's, and reads the servers again at each
// reload (host.State.Replaced), so servers and agents a reload adds are watched from then on,
// and a reload's new instance of a degraded server that connects is its recovery. A server
// removed while degraded is forgotten, with no line.
//
// It also tries each degraded server not configured lazy when its next attempt is due, and a
// reload's new instance of one at once, at most one round a second: a degraded server
// recovers only when asked, and a replica that /readyz keeps out of a load balancer would
// otherwise never be asked. Watch returns once its subscriptions and tries have ended.
func Watch(ctx context.Context, h *host.Host, opts WatchOptions) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	// gen counts the states Watch has moved to. A sub records the count, not the State: a
	// State leads to every one published after it (host.State.Next), so a sub holding the
	// one it was made for would keep every later state alive for as long as it runs.
	gen := 0
	type sub struct {
		in    int // the gen it was made in: one that ended is made again in a later one only
		ended atomic.Bool
		stop  context.CancelFunc
	}
	subs := map[string]*sub{} // by agent; "" is the pool's scope
	subscribe := func(agent string) {
		if s := subs[agent]; s != nil {
			if !s.ended.Load() || s.in == gen {
				return
			}
			s.stop()
		}
		sctx, stop := context.WithCancel(ctx)
		s := &sub{in: gen, stop: stop}
		subs[agent] = s
		changes := h.Registry.Changes(sctx, ext.Scope{AgentName: agent})
		wg.Go(func() {
			for range changes {
				poke()
			}
			s.ended.Store(true)
			poke()
		})
	}
	degraded := map[serverKey]bool{}
	probed := make(chan struct{}, 1)
	probing := false
	var lastProbe time.Time
	st := h.Current()
	for {
		// Every state published since the last reading, in order: a degraded server that one
		// of them had removed is forgotten, though a later one added it again.
		for next := st.Next(); next != nil; next = st.Next() {
			st = next
			gen++
			present := serversOf(st, watchedAgents(st, opts.Agents))
			for k := range degraded {
				if present[k] == nil {
					delete(degraded, k)
				}
			}
		}
		watched := map[string]bool{"": true}
		subscribe("")
		agents := watchedAgents(st, opts.Agents)
		for _, a := range agents {
			watched[a] = true
			subscribe(a)
		}
		for a, s := range subs {
			if !watched[a] {
				s.stop()
				delete(subs, a)
			}
		}
		if subs[""].ended.Load() {
			return // ctx ended, or the registry closed
		}
		// Read after subscribing: a change from now on wakes the loop again.
		servers := serversOf(st, agents)
		var due []*mcpcap.Cap
		var next time.Time
		for _, k := range sortedKeys(servers) {
			c := servers[k]
			switch s := c.Status(); s.State {
			case mcpcap.StateDegraded:
				if !degraded[k] {
					degraded[k] = true
					opts.Report(Transition{Server: k.label(), Err: s.LastError})
				}
				if !c.Config().Lazy {
					due = append(due, c)
					if next.IsZero() || s.NextAttempt.Before(next) {
						next = s.NextAttempt
					}
				}
			case mcpcap.StateConnected:
				if degraded[k] {
					delete(degraded, k)
					opts.Report(Transition{Server: k.label(), Recovered: true})
				}
			case mcpcap.StateIdle, mcpcap.StateConnecting:
				// A reload's new instance of a degraded server: tried at once (or its connect
				// waited for), as serve tries every eager server at start, since its first
				// connection announces nothing.
				if degraded[k] && !c.Config().Lazy {
					due = append(due, c)
					next = time.Now()
				}
			}
		}
		for k := range degraded {
			if servers[k] == nil {
				delete(degraded, k)
			}
		}
		timer := time.NewTimer(max(time.Until(next), time.Until(lastProbe.Add(time.Second))))
		if probing || len(due) == 0 {
			timer.Stop() // nothing to try, or a round running
		}
		select {
		case <-wake:
		case <-st.Replaced():
		case <-ctx.Done():
			timer.Stop()
			return
		case <-probed:
			probing, lastProbe = false, time.Now()
		case <-timer.C:
			probing = true
			wg.Go(func() { Connect(ctx, due); probed <- struct{}{} })
		}
		timer.Stop()
	}
}

// watchedAgents returns the agents whose own servers Watch follows in st (WatchOptions.Agents).
func watchedAgents(st *host.State, agents func(*host.State) []string) []string {
	if agents == nil {
		return nil
	}
	return agents(st)
}

// serversOf returns the servers Watch follows in st: the pool's, and the own servers of agents.
func serversOf(st *host.State, agents []string) map[serverKey]*mcpcap.Cap {
	servers := map[serverKey]*mcpcap.Cap{}
	for _, c := range st.Servers {
		servers[serverKey{"", c.Status().Name}] = c
	}
	for _, a := range agents {
		for _, c := range st.AgentServers(a) {
			servers[serverKey{a, c.Status().Name}] = c
		}
	}
	return servers
}

// sortedKeys returns m's keys, pool servers first, then by agent and name: the order
// transitions found in one reading are reported in.
func sortedKeys(m map[serverKey]*mcpcap.Cap) []serverKey {
	keys := make([]serverKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b serverKey) int {
		return cmp.Or(cmp.Compare(a.agent, b.agent), cmp.Compare(a.name, b.name))
	})
	return keys
}

// Connect lists the tools of each of servers not configured lazy, concurrently, which
// connects it or, failing that, degrades it: what a first session's compile would do. It
// returns once every one was tried; ctx bounds the tries, and so does each server's startup
// timeout plus its call timeout: a server that starts and then never answers the listing
// holds up no one for longer.
func Connect(ctx context.Context, servers []*mcpcap.Cap) {
	var wg sync.WaitGroup
	for _, c := range servers {
		cfg := c.Config()
		if cfg.Lazy {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, cfg.Server.StartupTimeout+cfg.Timeout)
			defer cancel()
			_, _ = c.Tools(ctx)
		})
	}
	wg.Wait()
}
