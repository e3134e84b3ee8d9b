package ext

// announce tells every subscriber that sees e that what e's capability offers appeared (at
// Register) or went away (at Unregister): one event of each kind the capability can offer,
// found by its interfaces (tools; resources and templates; commands; skills), Capability
// set to its registered name. A capability offering none of them is not announced.
//
// Without it a registration made while sessions are live (a config reload adding, removing
// or replacing a server; an editor's own server added to its session) would reach no
// session until the capability emitted an event of its own. The events coalesce like
// any other, so announcing many registrations at once costs each subscriber one view.
func (r *Registry) announce(e *entry) {
	for _, k := range kindsOf(e.cap) {
		if ev := (ChangeEvent{Capability: e.name, Kind: k}); !r.holding(e, ev) {
			r.fanout(e, ev)
		}
	}
}

// kindsOf lists the change kinds c can produce, by the interfaces it implements.
func kindsOf(c Capability) []ChangeKind {
	var kinds []ChangeKind
	if _, ok := c.(ToolProvider); ok {
		kinds = append(kinds, ToolsChanged)
	}
	_, res := c.(ResourceSource)
	_, tpl := c.(ResourceTemplateSource)
	if res || tpl {
		kinds = append(kinds, ResourcesChanged)
	}
	if _, ok := c.(CommandResource); ok {
		kinds = append(kinds, CommandsChanged)
	}
	if _, ok := c.(SkillResource); ok {
		kinds = append(kinds, SkillsChanged)
	}
	return kinds
}
