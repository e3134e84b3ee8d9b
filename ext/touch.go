package ext

// TouchAgent tells the registry that what the scopes of agent name see has changed though no
// registration did: the agent's definition changed (a config reload narrowed its tool filter),
// and a view compiled with options read from the old one is stale. Every scope naming the
// agent gets a new Stamp, so a cached view of it is compiled again, and each subscriber of
// such a scope is told (ToolsChanged, Capability "agents.<name>"), so a client session of the
// agent is sent list_changed. Other scopes are untouched. During a Hold the stamps change at
// once and the subscribers are told at its release, with its other announcements.
func (r *Registry) TouchAgent(name string) {
	r.mu.Lock()
	if r.agentGen == nil {
		r.agentGen = map[string]uint64{}
	}
	r.agentGen[name]++
	r.mu.Unlock()
	if r.holdingAgent(name) {
		return
	}
	r.announceAgent(name)
}

// announceAgent tells the subscribers of agent name's scopes that TouchAgent touched it.
func (r *Registry) announceAgent(name string) {
	ev := ChangeEvent{Capability: "agents." + name, Kind: ToolsChanged}
	s := &r.subs
	s.mu.RLock()
	defer s.mu.RUnlock()
	for sub := range s.byAgent[name] {
		sub.push(nil, ev.Capability, ev)
	}
}

// agentStampLocked is what TouchAgent adds to the stamp of a scope naming agent: zero until
// it was touched. The caller holds r.mu.
func (r *Registry) agentStampLocked(agent string) uint64 {
	if agent == "" || r.agentGen[agent] == 0 {
		return 0
	}
	return mix64(r.agentGen[agent] ^ 0x5bd1e9955bd1e995)
}
