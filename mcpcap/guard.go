package mcpcap

import (
	"maps"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Guard checks each tools listing of a server against the definitions the user approved
// (package pin implements it; the host injects it with WithGuard). The Cap owns the Guard it
// is given and closes it with itself.
type Guard interface {
	// Tools returns the tools of upstream (named as the server names them) to serve and, by
	// the server's name, the error a call to each one kept out gets.
	Tools(upstream []ext.ToolEntry) (serve []ext.ToolEntry, blocked map[string]error)
	// Close releases the guard; it is idempotent.
	Close() error
}

// ListingGuard is a Guard that checks the server's prompts and resource-templates listings
// too (package pin's Guard is one). Each returns why each definition kept out is, by the
// server's name for a prompt and by URI template for a template; the Cap serves the others.
type ListingGuard interface {
	Prompts(upstream []ext.CommandEntry) (blocked map[string]error)
	Templates(upstream []ext.ResourceTemplateEntry) (blocked map[string]error)
}

// WithGuard makes the Cap check every tools listing of its server with g: what g keeps out is
// neither listed nor callable, and a call to it fails with g's error (BlockedTool). Static
// tools (Lazy) are the user's own declaration and are not checked. A ListingGuard checks the
// prompts and resource-templates listings as well: a prompt it keeps out is not listed and
// prompts/get of it fails with its error; a template it keeps out is not listed and does not
// match a URI. A server that does not offer prompts or resources has them checked as empty
// listings, so what it offers later is new.
func WithGuard(g Guard) Option {
	return func(o *options) { o.guard = g }
}

var _ ext.ToolBlocker = (*Cap)(nil)

// BlockedTool returns the error a call to the tool name (as Tools would name it) gets while
// the Cap's Guard keeps it out of the last listing, or nil.
func (c *Cap) BlockedTool(name string) error {
	if ts := c.tools.Load(); ts != nil {
		return ts.blocked[name]
	}
	return nil
}

// BlockedTools returns the names (as Tools would name them) of the tools the Cap's Guard
// kept out of the last listing, sorted.
func (c *Cap) BlockedTools() []string {
	if ts := c.tools.Load(); ts != nil {
		return slices.Sorted(maps.Keys(ts.blocked))
	}
	return nil
}

// Recheck lists the server's tools again at the next access and emits tools_changed, as a
// tools list_changed of the server does: the Guard's approvals changed. A dormant Lazy Cap
// serving its manifest's tools reads and checks them again, still without connecting. With a
// ListingGuard it does the same for prompts and resources, and with a SkillGuard for skills.
func (c *Cap) Recheck() {
	if c.isClosed() {
		return
	}
	c.staleTools.Store(true)
	c.uncacheTools()
	c.emitToolsChanged()
	if _, ok := c.guard.(ListingGuard); !ok {
		return
	}
	c.mu.Lock()
	c.promptList.drop()
	c.resList.drop()
	c.mu.Unlock()
	c.emit(ext.PromptsChanged, "")
	c.emit(ext.CommandsChanged, "")
	c.emit(ext.ResourcesChanged, "")
	if _, ok := c.guard.(SkillGuard); ok {
		c.mu.Lock()
		c.skillList.drop()
		c.mu.Unlock()
		c.emit(ext.SkillsChanged, "")
	}
}

// guardPrompts returns list without the prompts the Cap's ListingGuard keeps out, and
// remembers why each is kept out.
func (c *Cap) guardPrompts(list []*mcp.Prompt) []*mcp.Prompt {
	lg, ok := c.guard.(ListingGuard)
	if !ok {
		return list
	}
	blocked := lg.Prompts(promptEntries(list))
	c.blockedPrompts.Store(&blocked)
	if len(blocked) == 0 {
		return list
	}
	return slices.DeleteFunc(list, func(p *mcp.Prompt) bool { return blocked[p.Name] != nil })
}

var _ ext.CommandBlocker = (*Cap)(nil)

// BlockedCommand returns why prompts/get of the command name ("<server>:<prompt>", or the
// prompt's own name when the Cap serves names bare; a leading "/" allowed) is refused while
// the Cap's Guard keeps the prompt out of the last listing, or nil.
func (c *Cap) BlockedCommand(name string) error {
	name = strings.TrimPrefix(name, "/")
	if rest, ok := strings.CutPrefix(name, c.cfg.Name+":"); ok {
		return c.blockedPrompt(rest)
	}
	if c.cfg.Prefix != nil && *c.cfg.Prefix == "" {
		return c.blockedPrompt(name)
	}
	return nil
}

// blockedPrompt returns why the Cap's Guard keeps the prompt name (the server's name) out of
// the last prompts listing, or nil.
func (c *Cap) blockedPrompt(name string) error {
	if b := c.blockedPrompts.Load(); b != nil {
		return (*b)[name]
	}
	return nil
}

// blockedTemplate is a resource template the Cap's Guard keeps out, and why.
type blockedTemplate struct {
	match *uritemplate.Template // nil when the template does not parse
	err   error
}

// guardTemplates returns ts without the templates the Cap's ListingGuard keeps out, and
// remembers them (BlockedResource).
func (c *Cap) guardTemplates(ts []ext.ResourceTemplateEntry) []ext.ResourceTemplateEntry {
	lg, ok := c.guard.(ListingGuard)
	if !ok {
		return ts
	}
	blocked := lg.Templates(ts)
	var kept []blockedTemplate
	for _, t := range ts {
		if err := blocked[t.URITemplate]; err != nil {
			m, _ := uritemplate.New(t.URITemplate)
			kept = append(kept, blockedTemplate{match: m, err: err})
		}
	}
	c.blockedTemplates.Store(&kept)
	if len(blocked) == 0 {
		return ts
	}
	return slices.DeleteFunc(ts, func(t ext.ResourceTemplateEntry) bool { return blocked[t.URITemplate] != nil })
}

var _ ext.ResourceBlocker = (*Cap)(nil)

// BlockedResource returns why reading uri (the server's URI or mcp://<server>/<uri>) is
// refused when a template the Cap's Guard kept out of the last listing matches it, or uri is
// a file of a skill the Guard kept out (SkillGuard); nil otherwise. It does not ask whether
// the server serves uri otherwise: the caller asks it for a URI nothing served has.
func (c *Cap) BlockedResource(uri string) error {
	uri, ok := c.unwrapURI(uri)
	if !ok {
		return nil
	}
	if b := c.blockedTemplates.Load(); b != nil {
		for _, t := range *b {
			if t.match != nil && t.match.Match(uri) != nil {
				return t.err
			}
		}
	}
	return c.blockedSkill(uri)
}
