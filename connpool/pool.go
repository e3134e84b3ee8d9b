package connpool

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/sandbox"
)

// Pool is the SessionConnectionPool: it starts MCP clients on demand, shares
// one client per (partition, config fingerprint) among reference-counted
// leases, caps live clients, expires idle ones and, on Close, ends every
// process group it started. All methods are safe for concurrent use.
type Pool struct {
	opts Options

	ctx    context.Context // ends at Close; parent of every start
	cancel context.CancelFunc

	mu       sync.Mutex
	clients  map[poolKey]*client // starting and live clients
	waiting  int                 // Gets waiting for a slot (Stats.Waiting)
	reserved [2]int              // slots above the caps for declared servers: shared, per session (Reserve)
	changed  chan struct{}       // closed and replaced when a slot may have freed
	closed   bool
	closeCh  chan struct{}        // closed when Close has finished tearing down
	doomed   map[*client]struct{} // clients of closed partitions, until ClosePartition sees them done
	held     map[poolKey]struct{} // places under MaxSessionProcesses held for a partition's servers (ReserveSessionProcesses)

	wg      sync.WaitGroup // every goroutine the pool starts
	procs   atomic.Int64   // stdio processes whose group is not yet dead
	starter starter        // starts stdio servers; stopped once all of them are dead
	tokens  sharedTokens   // users' OAuth tokens, one source a server and user (sharedtokens.go)
}

// New returns a pool configured by opts (nil means defaults). It starts no
// goroutine and no process. With Options.Subreaper a failure to become a
// subreaper is logged and the pool works without it. The first pool of a
// process removes the sandboxes' private temporary folders that processes
// gone without removing them left behind (sandbox.SweepStale).
func New(opts *Options) *Pool {
	o := opts.withDefaults()
	sandbox.SweepStale() // the private folders of sandboxed servers of an agentpool killed -9
	if o.Subreaper {
		if err := becomeSubreaper(); err != nil {
			o.Logger.Warn("connpool: cannot become child subreaper", "err", err)
			o.Subreaper = false
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{
		opts:    o,
		ctx:     ctx,
		cancel:  cancel,
		clients: make(map[poolKey]*client),
		changed: make(chan struct{}),
		closeCh: make(chan struct{}),
		tokens:  sharedTokens{dial: o.DialContext},
	}
}

// goTracked runs f on a goroutine that Close waits for.
func (p *Pool) goTracked(f func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		f()
	}()
}

// broadcastLocked wakes every Get waiting for a free slot.
func (p *Pool) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Get returns a lease on the client for cfg in partition, starting one if
// none is live. Concurrent Gets for the same key start one client; the others
// wait for it. A start failure returns an error wrapping ErrStart that names
// the server and carries its stderr tail; it is not cached, so the next Get
// tries again. When partition has MaxClients clients live, or all partitions
// MaxTotalClients (each plus Reserve's count), Get evicts an idle one that makes room;
// failing that it returns at once an error wrapping ErrPoolExhausted that names the cap (its
// config key), unless a client counted against the cap is still starting: then it waits for
// that start to end (a bounded wait) and tries again, or for ctx, whose end fails it with
// ErrPoolExhausted and ctx.Err(). Every successful Get must be paired with a Release.
func (p *Pool) Get(ctx context.Context, cfg ServerConfig, partition string) (*Conn, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if partition == "" {
		partition = GlobalPartition
	}
	k := poolKey{partition: partition, fingerprint: cfg.Fingerprint()}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, fmt.Errorf("connpool: server %q: %w", cfg.label(), ErrClosed)
		}
		c := p.clients[k]
		if c != nil && c.ended.Load() {
			p.removeLocked(c)
			c = nil
		}
		if c == nil {
			if err := p.sessionProcessRoomLocked(cfg, k); err != nil {
				p.mu.Unlock()
				return nil, err
			}
			if full, starting := p.roomLocked(partition); full != "" {
				if !starting {
					p.mu.Unlock()
					return nil, fmt.Errorf("connpool: server %q: %w: %s", cfg.label(), ErrPoolExhausted, full)
				}
				wait := p.changed
				p.waiting++
				p.mu.Unlock()
				select {
				case <-wait:
					p.mu.Lock()
					p.waiting--
					p.mu.Unlock()
					continue
				case <-ctx.Done():
					p.mu.Lock()
					p.waiting--
					p.mu.Unlock()
					return nil, fmt.Errorf("connpool: server %q: %w: %s: %w", cfg.label(), ErrPoolExhausted, full, ctx.Err())
				}
			}
			c = newClient(p, k, cfg)
			c.inMap = true
			p.clients[k] = c
			c.adopt(ctx) // before it starts: the server may ask at once
			p.goTracked(func() { p.runStart(c) })
		} else {
			c.adopt(ctx)
		}
		c.leases++
		if c.idleTimer != nil {
			c.idleTimer.Stop()
			c.idleTimer = nil
		}
		p.mu.Unlock()

		select {
		case <-c.ready:
		case <-ctx.Done():
			p.unlease(c)
			return nil, fmt.Errorf("connpool: server %q: waiting for start: %w", cfg.label(), ctx.Err())
		}
		if c.startErr != nil {
			p.unlease(c)
			return nil, c.startErr
		}
		return &Conn{c: c}, nil
	}
}

// runStart starts c and publishes the outcome.
func (p *Pool) runStart(c *client) {
	err := c.start(p.ctx)
	p.mu.Lock()
	c.startErr = err
	if err != nil {
		p.opts.Logger.Warn("connpool: start failed", "server", c.label(), "partition", c.key.partition, "err", err)
		p.removeLocked(c)
		c.err = err
		close(c.done)
		p.forgetDoomedLocked(c)
	} else {
		if c.leases == 0 && !c.doomed {
			p.armIdleLocked(c) // idle now: a Get waiting at a cap may evict it
		}
		p.broadcastLocked() // a Get waiting at a cap for this start tries again
	}
	close(c.ready)
	closed := p.closed || (c.doomed && c.leases == 0)
	p.mu.Unlock()
	if err == nil && closed {
		c.close() // Close or ClosePartition ran while we were starting
	}
}

// unlease drops one lease on c and arms its idle timer when it was the last.
func (p *Pool) unlease(c *client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.leases--
	if c.leases == 0 && c.doomed {
		select {
		case <-c.ready:
			c.close() // a failed start is already done; close is a no-op request then
		default: // runStart closes it
		}
		p.broadcastLocked() // it no longer counts against the caps
		return
	}
	if c.leases == 0 && c.inMap {
		select {
		case <-c.ready:
			if c.startErr == nil {
				p.armIdleLocked(c)
			}
		default:
		}
		p.broadcastLocked() // an idle client is evictable
	}
}

func (p *Pool) armIdleLocked(c *client) {
	c.idleSince = time.Now()
	if p.opts.IdleTimeout < 0 || p.closed {
		return
	}
	if c.idleTimer != nil {
		c.idleTimer.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(p.opts.IdleTimeout, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if c.idleTimer != t || c.leases > 0 || !c.inMap || p.closed {
			return
		}
		p.opts.Logger.Debug("connpool: idle client expired", "server", c.label(), "partition", c.key.partition)
		p.removeLocked(c)
		c.close()
	})
	c.idleTimer = t
}

// roomLocked makes room for a new client in partition, evicting idle clients as needed: one
// of partition's own when the partition is at its cap, any when all partitions are at theirs.
// It returns "" when there is room, else which cap is met, for the error, and whether a client
// counted against that cap is still starting: its start, bounded by its StartupTimeout, may
// end with the client idle (its Get gave up) or gone, and so make room.
func (p *Pool) roomLocked(partition string) (full string, starting bool) {
	for {
		declared := p.reserved[1]
		if partition == GlobalPartition {
			declared = p.reserved[0]
		}
		if n, max := p.liveLocked(partition), p.opts.MaxClients+declared; n >= max {
			if !p.evictIdleLocked(partition) {
				return fmt.Sprintf("partition %q has %d of %d clients live and leased (pool.max_clients %d, plus %d for the declared servers)",
					partition, n, max, p.opts.MaxClients, declared), p.startingLocked(partition)
			}
			continue
		}
		if n, max := p.liveLocked(""), p.opts.MaxTotalClients+p.reserved[0]; n >= max {
			if !p.evictIdleLocked("") {
				return fmt.Sprintf("%d of %d clients live and leased in all partitions (pool.max_total_clients %d, plus %d for the declared shared servers)",
					n, max, p.opts.MaxTotalClients, p.reserved[0]), p.startingLocked("")
			}
			continue
		}
		return "", false
	}
}

// sessionProcessRoomLocked refuses a new stdio server in a session partition when the
// session partitions hold MaxSessionProcesses of them already (places held included), unless
// a place is held for this very server (k). It does not wait: a session's servers start as
// it opens, and a place frees only when some session ends.
func (p *Pool) sessionProcessRoomLocked(cfg ServerConfig, k poolKey) error {
	if _, ok := p.held[k]; ok || k.partition == GlobalPartition || cfg.transportType() != TypeStdio {
		return nil
	}
	if n := p.sessionProcessesLocked(); n >= p.opts.MaxSessionProcesses {
		return &limitError{key: "pool.max_session_processes", err: fmt.Errorf("connpool: server %q: %w: %d of %d processes of session-scoped servers live or held in all sessions (pool.max_session_processes)",
			cfg.label(), ErrPoolExhausted, n, p.opts.MaxSessionProcesses)}
	}
	return nil
}

// ReserveSessionProcesses holds a place under Options.MaxSessionProcesses for each stdio
// server of cfgs (one per fingerprint: servers of one fingerprint share a client) that session
// partition is about to start, in one step with the count of what is live, starting and held
// in all session partitions: two sessions reserving at once can never both pass the cap. When
// fewer places are left than it needs it fails at once, holding none, with an error wrapping
// ErrPoolExhausted that names pool.max_session_processes (its LimitKey). A Get starting one
// of these servers in partition starts it in its place instead of checking the cap, as often
// as it must start again (after a crash, or a failed start); another server starting there
// (a skill's) is held to the cap and never takes a place held for these. A place is given
// back by ClosePartition, or by Retire of its server. Servers not stdio, and
// GlobalPartition, hold nothing.
func (p *Pool) ReserveSessionProcesses(partition string, cfgs ...ServerConfig) error {
	if partition == "" || partition == GlobalPartition {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("connpool: partition %q: %w", partition, ErrClosed)
	}
	want := map[poolKey]struct{}{}
	for _, cfg := range cfgs {
		k := poolKey{partition: partition, fingerprint: cfg.Fingerprint()}
		if _, held := p.held[k]; held || p.clients[k] != nil || cfg.transportType() != TypeStdio {
			continue
		}
		want[k] = struct{}{}
	}
	if len(want) == 0 {
		return nil
	}
	if live, n := p.sessionProcessesLocked(), len(want); live+n > p.opts.MaxSessionProcesses {
		return &limitError{key: "pool.max_session_processes", err: fmt.Errorf("connpool: partition %q: %w: %d processes of session-scoped servers live or held in all sessions, and %d more would pass pool.max_session_processes (%d)",
			partition, ErrPoolExhausted, live, n, p.opts.MaxSessionProcesses)}
	}
	if p.held == nil {
		p.held = map[poolKey]struct{}{}
	}
	maps.Copy(p.held, want)
	return nil
}

// sessionProcessesLocked counts the stdio servers of the partitions but the global one,
// starting or live (those of closed partitions still leased included), and the places the
// partitions hold for more.
func (p *Pool) sessionProcessesLocked() int {
	isSessionProc := func(c *client) bool {
		return c.key.partition != GlobalPartition && c.cfg.transportType() == TypeStdio
	}
	n := len(p.held) // a held server's client is counted in its place
	for _, c := range p.clients {
		if _, held := p.held[c.key]; !held && isSessionProc(c) {
			n++
		}
	}
	for c := range p.doomed {
		if c.leases > 0 && !c.ended.Load() && isSessionProc(c) {
			n++
		}
	}
	return n
}

// SessionProcesses reports the stdio servers of session partitions starting or live now and the
// places held for more (ReserveSessionProcesses), and Options.MaxSessionProcesses: a session
// that would start more than max-live is refused.
func (p *Pool) SessionProcesses() (live, max int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessionProcessesLocked(), p.opts.MaxSessionProcesses
}

// startingLocked reports whether a client of partition (of any when "") is still starting.
func (p *Pool) startingLocked(partition string) bool {
	for _, c := range p.clients {
		if partition != "" && c.key.partition != partition {
			continue
		}
		select {
		case <-c.ready:
		default:
			return true
		}
	}
	return false
}

// Reserve makes room beyond the caps for the servers a configuration declares, so that they
// can all run at once whatever the caps leave for what sessions and skills add on top:
// shared more clients in GlobalPartition (beyond Options.MaxClients) and in all partitions
// together (beyond Options.MaxTotalClients), perSession more in every other partition (beyond
// Options.MaxClients; the total still bounds them, as it bounds sessions). A program sets it
// from its configuration, again at each reload; lowering it closes nothing. Negative counts
// as zero. Reserve wakes Gets waiting at a cap.
func (p *Pool) Reserve(shared, perSession int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reserved = [2]int{max(shared, 0), max(perSession, 0)}
	p.broadcastLocked()
}

// evictIdleLocked closes the client idle for longest, of partition or of any when partition
// is "", if any, to make room.
func (p *Pool) evictIdleLocked(partition string) bool {
	var c *client
	for _, x := range p.clients {
		if x.leases > 0 || (partition != "" && x.key.partition != partition) {
			continue
		}
		select {
		case <-x.ready:
		default:
			continue // still starting
		}
		if c == nil || x.idleSince.Before(c.idleSince) {
			c = x
		}
	}
	if c == nil {
		return false
	}
	p.opts.Logger.Debug("connpool: evicting idle client", "server", c.label(), "partition", c.key.partition)
	p.removeLocked(c)
	c.close()
	return true
}

// removeLocked takes c out of the map so it no longer counts or matches.
func (p *Pool) removeLocked(c *client) {
	if !c.inMap {
		return
	}
	c.inMap = false
	if p.clients[c.key] == c {
		delete(p.clients, c.key)
	}
	if c.idleTimer != nil {
		c.idleTimer.Stop()
		c.idleTimer = nil
	}
	p.broadcastLocked()
}

// liveLocked counts the clients of partition (of all partitions when "") that count against
// the caps: those in the map (starting or live) and those of closed partitions that are
// still leased (live until their last Release; see ClosePartition).
func (p *Pool) liveLocked(partition string) int {
	n := 0
	if partition == "" {
		n = len(p.clients)
	} else {
		for k := range p.clients {
			if k.partition == partition {
				n++
			}
		}
	}
	for c := range p.doomed {
		if c.leases > 0 && !c.ended.Load() && (partition == "" || c.key.partition == partition) {
			n++
		}
	}
	return n
}

// forgetDoomedLocked drops c, which has ended, from the closed partitions'
// clients; a leased one frees its slot.
func (p *Pool) forgetDoomedLocked(c *client) {
	if _, ok := p.doomed[c]; ok {
		delete(p.doomed, c)
		p.broadcastLocked()
	}
}

// remove is called by a client whose session ended.
func (p *Pool) remove(c *client) {
	p.mu.Lock()
	p.removeLocked(c)
	p.forgetDoomedLocked(c)
	p.mu.Unlock()
}

// Release gives a lease back. It is idempotent per Conn (a second Release of
// the same Conn does nothing) and safe after Close. It never closes a client
// that other leases still hold; a client left with no lease is closed after
// IdleTimeout, or earlier if its slot is needed. Observers registered through
// c receive no notification delivered after Release (see Conn.Observe for one
// already being delivered).
func (p *Pool) Release(c *Conn) {
	if c == nil || !c.released.CompareAndSwap(false, true) {
		return
	}
	c.stopObservers()
	p.unlease(c.c)
}

// ClosePartition ends the clients of partition now rather than after
// IdleTimeout: what a session's end needs, since a session's processes and
// their state belong to it alone. Idle clients (and clients still starting
// with no lease) are closed at once; a leased client is closed as soon as its
// last lease is released (a Release by a caller that outlives the partition is
// still honoured, and its calls keep working until then). Every such client
// leaves the pool at once: a later Get in partition starts a new client, so
// callers should use a new partition name for a new session. A leased client
// still counts against the caps until its last Release. The places the partition
// holds under MaxSessionProcesses (ReserveSessionProcesses) are given back at once.
//
// ClosePartition returns when every client of partition that has no lease,
// including those closed by an earlier ClosePartition and released since,
// has ended (for stdio: its process group is dead and reaped), or with an
// error wrapping ctx.Err() when ctx ends first (teardown goes on in the
// background). Clients still leased are not waited for. Partition "" means
// GlobalPartition. It is safe to call concurrently, repeatedly and after
// Close (then it does nothing).
func (p *Pool) ClosePartition(ctx context.Context, partition string) error {
	if partition == "" {
		partition = GlobalPartition
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	for k := range p.held {
		if k.partition == partition {
			delete(p.held, k)
		}
	}
	for _, c := range p.clients {
		if c.key.partition == partition {
			p.doomLocked(c)
		}
	}
	var wait []*client
	for c := range p.doomed {
		select {
		case <-c.done:
			delete(p.doomed, c) // ended: nothing left to wait for
			continue
		default:
		}
		if c.key.partition != partition || c.leases > 0 {
			continue
		}
		select {
		case <-c.ready:
			c.close()
		default: // starting with no lease: runStart closes it
		}
		wait = append(wait, c)
	}
	p.mu.Unlock()
	for _, c := range wait {
		select {
		case <-c.done:
		case <-ctx.Done():
			return fmt.Errorf("connpool: close partition %q: server %q still ending: %w", partition, c.label(), ctx.Err())
		}
	}
	return nil
}

// Close ends every client: each stdio server's whole process group gets its
// stdin closed, SIGTERM, KillGrace, then SIGKILL, and is reaped. It returns
// when everything the pool started has ended, or with ctx.Err() when ctx ends
// first (teardown goes on in the background). Close is idempotent; later
// calls wait like the first. Get after Close fails with ErrClosed.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	first := !p.closed
	var all []*client
	if first {
		p.closed = true
		for _, c := range p.clients {
			all = append(all, c)
			p.removeLocked(c)
		}
		for c := range p.doomed { // closed partitions' clients still leased
			all = append(all, c)
		}
		p.doomed = nil
		p.broadcastLocked()
	}
	p.mu.Unlock()
	if first {
		p.cancel() // fails starts in progress
		for _, c := range all {
			select {
			case <-c.ready:
				c.close()
			default: // runStart closes it if the start succeeds anyway
			}
		}
		go func() {
			p.wg.Wait()
			p.starter.stop()
			p.tokens.close()
			close(p.closeCh)
		}()
	}
	select {
	case <-p.closeCh:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("connpool: close: %d processes still alive: %w", p.procs.Load(), ctx.Err())
	}
}

// Stats is a snapshot of the pool, for tests and the status page.
type Stats struct {
	// Clients counts live, connected clients; Starting counts clients whose
	// start is in progress. Both count against the caps.
	Clients, Starting int
	// Leases counts outstanding leases; Idle counts live clients with none.
	Leases, Idle int
	// Processes counts stdio processes whose group is not yet dead, including
	// ones being torn down after eviction, expiry or a crash.
	Processes int
	// Waiting counts Gets waiting for a free slot because a cap (MaxClients in their
	// partition, MaxTotalClients) is met and a client counted against it is still starting.
	Waiting int
	// Servers lists each client in the pool, sorted by partition then name.
	Servers []ServerStats
}

// ServerStats describes one client in the pool.
type ServerStats struct {
	Name, Partition, Fingerprint, Type string
	PID, Leases                        int
	Starting                           bool
}

// Stats returns a consistent snapshot.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{Processes: int(p.procs.Load()), Waiting: p.waiting}
	for _, c := range p.clients {
		ss := ServerStats{Name: c.cfg.Name, Partition: c.key.partition, Fingerprint: c.key.fingerprint,
			Type: c.cfg.transportType(), Leases: c.leases}
		select {
		case <-c.ready:
			s.Clients++
			if c.leases == 0 {
				s.Idle++
			}
			if c.proc != nil {
				ss.PID = c.proc.pid
			}
		default:
			s.Starting++
			ss.Starting = true
		}
		s.Leases += c.leases
		s.Servers = append(s.Servers, ss)
	}
	sort.Slice(s.Servers, func(i, j int) bool {
		a, b := s.Servers[i], s.Servers[j]
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Name < b.Name
	})
	return s
}
