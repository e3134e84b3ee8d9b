package connpool

// Retire ends the client for cfg in partition now rather than after IdleTimeout: what a
// config reload needs for a server it removed or changed, whose old process must not linger.
// The client leaves the pool at once, so the next Get for the same key starts a new one (a
// changed declaration restarts its server even when what changed is not fingerprinted); it
// is closed now when no lease holds it, else at its last Release (another holder of the
// same key keeps it, its calls working, until then), and counts against the caps until then,
// as a closed partition's clients do (ClosePartition). Other keys are not touched: the same
// config in another partition, another config in the same one. Retire does not wait for the
// process to end (Stats.Processes counts it until then; Close waits for it). The place
// ReserveSessionProcesses held for the server is given back. Partition "" means
// GlobalPartition. A key with no client, a second Retire and Retire after Close do
// nothing.
func (p *Pool) Retire(cfg ServerConfig, partition string) {
	if partition == "" {
		partition = GlobalPartition
	}
	k := poolKey{partition: partition, fingerprint: cfg.Fingerprint()}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.held[k]; ok {
		delete(p.held, k) // the server's place under MaxSessionProcesses: counted as doomed now
		p.broadcastLocked()
	}
	c := p.clients[k]
	if p.closed || c == nil {
		return
	}
	p.doomLocked(c)
	if c.leases == 0 {
		select {
		case <-c.ready:
			c.close()
		default: // starting with no lease: runStart closes it
		}
	}
}

// doomLocked takes c out of the pool for good (ClosePartition, Retire): no Get finds it
// again, and it is closed at its last Release (unlease) or by Close.
func (p *Pool) doomLocked(c *client) {
	if p.doomed == nil {
		p.doomed = make(map[*client]struct{})
	}
	c.doomed = true
	p.removeLocked(c)
	p.doomed[c] = struct{}{}
}
