package skill

import (
	"slices"

	"github.com/agentpool/agentpool/ext"
)

var (
	_ ext.ToolBlocker = (*Manager)(nil)
	_ ext.ToolBlocker = (*Servers)(nil)
)

// BlockedTool returns why a call to name ("<skill>__<tool>") is refused while the skill's
// server keeps that tool out of its listing (ext.ToolBlocker: a definition that changed since
// the user approved it), or nil.
func (m *Manager) BlockedTool(name string) error { return m.kids.blockedTool(name) }

// BlockedTools returns the names ("<skill>__<tool>") of the tools the skills' servers keep out
// of their last listings, sorted.
func (m *Manager) BlockedTools() []string { return m.kids.blockedTools() }

// BlockedTool is Manager.BlockedTool for a session's skill servers.
func (s *Servers) BlockedTool(name string) error { return s.kids.blockedTool(name) }

// BlockedTools is Manager.BlockedTools for a session's skill servers.
func (s *Servers) BlockedTools() []string { return s.kids.blockedTools() }

// eachBlocked calls f with each tool a child keeps out, named as Tools would name it, and why;
// it stops when f returns false.
func (c *children) eachBlocked(f func(name string, why error) bool) {
	for _, k := range c.all() {
		b, ok := k.cap.(ext.ToolBlocker)
		if !ok {
			continue
		}
		for _, raw := range b.BlockedTools() {
			if why := b.BlockedTool(raw); why != nil && !f(ext.ToolName(safeName(k.skill), raw), why) {
				return
			}
		}
	}
}

func (c *children) blockedTool(name string) (err error) {
	c.eachBlocked(func(n string, why error) bool {
		if n == name {
			err = why
		}
		return err == nil
	})
	return err
}

func (c *children) blockedTools() []string {
	var out []string
	c.eachBlocked(func(n string, _ error) bool {
		out = append(out, n)
		return true
	})
	slices.Sort(out)
	return out
}
