package mcpcap

import (
	"slices"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Manifests keeps what one server listed across runs (package manifest's Entry implements it;
// the host injects it with WithManifests, bound to the server's declaration). Listings are
// recorded as the server sent them, before any Guard, filter or prefix.
type Manifests interface {
	// Tools returns the tools the server listed last, named as it names them, and when; ok is
	// false when none are known.
	Tools() (tools []ext.ToolEntry, listed time.Time, ok bool)
	// ListedTools, ListedPrompts and ListedTemplates record a listing of the server.
	ListedTools([]ext.ToolEntry)
	ListedPrompts([]ext.CommandEntry)
	ListedTemplates([]ext.ResourceTemplateEntry)
}

// WithManifests makes the Cap record every tools, prompts and resource templates listing of
// its server in m, and makes a Lazy Cap without static tools list the tools m holds until its
// first use connects it, as if the server had listed them (a Guard checks them, filters and
// the prefix apply). Without an entry in m such a Cap connects at its first listing.
func WithManifests(m Manifests) Option {
	return func(o *options) { o.manifests = m }
}

// Where the tools a Cap serves come from (ToolsSource.From).
const (
	// FromServer: the live server's listing.
	FromServer = "server"
	// FromStatic: the static tools of the config (Config.Tools).
	FromStatic = "static"
	// FromCache: the manifest cached by an earlier run (WithManifests).
	FromCache = "cache"
)

// ToolsSource says where the tools a Cap serves come from.
type ToolsSource struct {
	// From is FromServer, FromStatic or FromCache; "" before the first listing.
	From string `json:"from,omitempty"`
	// Listed is when the server listed the cached tools (FromCache only).
	Listed time.Time `json:"listed,omitzero"`
}

// ToolsSource reports where the tools the Cap serves now come from. It does no I/O.
func (c *Cap) ToolsSource() ToolsSource {
	ts := c.tools.Load()
	switch {
	case ts == nil:
		return ToolsSource{}
	case ts.static && !ts.cached.IsZero():
		return ToolsSource{From: FromCache, Listed: ts.cached}
	case ts.static:
		return ToolsSource{From: FromStatic}
	}
	return ToolsSource{From: FromServer}
}

// cachedTools stores, once, the tool set a dormant Lazy Cap without static tools serves from
// its manifest, and returns it (or the tools stored meanwhile); nil when there are none. A
// listing made while the manifest is read waits for that read.
func (c *Cap) cachedTools() *toolSet {
	if c.manifests == nil || !c.dormant() {
		return nil
	}
	c.cacheSem <- struct{}{}
	defer func() { <-c.cacheSem }()
	if ts := c.tools.Load(); ts != nil || c.cacheTried {
		return ts
	}
	c.cacheTried = true
	upstream, listed, ok := c.manifests.Tools()
	if !ok {
		return nil
	}
	upstream = slices.Clone(upstream)
	var blocked map[string]error
	if c.guard != nil {
		upstream, blocked = c.guard.Tools(upstream)
	}
	ts := c.buildToolSet(upstream, true)
	for _, info := range ts.byName {
		info.cached = true
	}
	ts.cached = listed
	if listed.IsZero() {
		ts.cached = time.Unix(0, 0) // listed at an unknown time: still from the cache
	}
	ts.blocked = c.servedBlocked(blocked)
	if !c.tools.CompareAndSwap(nil, ts) {
		return c.tools.Load()
	}
	return ts
}

// uncacheTools drops the tools a dormant Lazy Cap serves from its manifest, so that the next
// listing reads and checks them again.
func (c *Cap) uncacheTools() {
	if c.manifests == nil {
		return
	}
	c.cacheSem <- struct{}{}
	defer func() { <-c.cacheSem }()
	ts := c.tools.Load()
	if ts == nil || ts.cached.IsZero() || !c.dormant() {
		return
	}
	c.cacheTried = false
	c.tools.CompareAndSwap(ts, nil)
}

// recordPrompts records a prompts listing of the server in its manifest, if any.
func (c *Cap) recordPrompts(list []*mcp.Prompt) {
	if c.manifests != nil {
		c.manifests.ListedPrompts(promptEntries(list))
	}
}

// promptEntries are the prompts of a listing as commands, by the server's names.
func promptEntries(list []*mcp.Prompt) []ext.CommandEntry {
	entries := make([]ext.CommandEntry, len(list))
	for i, p := range list {
		e := ext.CommandEntry{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				e.Arguments = append(e.Arguments, ext.CommandArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
			}
		}
		entries[i] = e
	}
	return entries
}

// LazyServer is where the tools of one Lazy Cap come from, for a report (`compile`).
type LazyServer struct {
	Name string `json:"name"`
	ToolsSource
}

// LazyServers returns, in the order of caps, each Lazy Cap among caps with its ToolsSource.
func LazyServers(caps []ext.Capability) []LazyServer {
	var out []LazyServer
	for _, c := range caps {
		if m, ok := c.(*Cap); ok && m.cfg.Lazy {
			out = append(out, LazyServer{Name: m.Name(), ToolsSource: m.ToolsSource()})
		}
	}
	return out
}

// Describe says where the tools come from for a person, the age of cached ones counted
// from now: "tools from the cache, listed 2026-01-02T15:04:05Z (3m0s ago)".
func (s ToolsSource) Describe(now time.Time) string {
	switch s.From {
	case FromCache:
		return "tools from the cache, listed " + s.Listed.UTC().Format(time.RFC3339) +
			" (" + now.Sub(s.Listed).Round(time.Second).String() + " ago)"
	case FromStatic:
		return "static tools (config tools:)"
	case FromServer:
		return "tools from the running server"
	}
	return "not listed yet"
}
