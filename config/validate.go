package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// Server types.
const (
	TypeStdio          = "stdio"
	TypeStreamableHTTP = "streamable-http"
	TypeSSE            = "sse"
)

func (c *Config) validate(p *problems) {
	for _, name := range c.ServerNames() {
		s := c.MCPServers[name]
		s.validate(name, c.Extensions.AllowedCommands, p)
		c.MCPServers[name] = s
	}
	if c.Pool.MaxClients < 0 {
		p.addf("$.pool.max_clients", "pool.max_clients: must be positive, got %d", c.Pool.MaxClients)
	}
	if c.Pool.IdleTimeout < 0 {
		p.addf("$.pool.idle_timeout", "pool.idle_timeout: must be positive, got %s", c.Pool.IdleTimeout)
	}
	if c.Extensions.MaxCompositionDepth < 0 {
		p.addf("$.extensions.max_composition_depth", "extensions.max_composition_depth: must be positive")
	}
	if c.Skills.Debounce < 0 {
		p.addf("$.skills.debounce", "skills.debounce: must be positive")
	}
	if c.Skills.MaxFolders < 0 {
		p.addf("$.skills.max_folders", "skills.max_folders: must be positive, got %d", c.Skills.MaxFolders)
	}
}

// validate checks one server and fills in its type when implied.
func (s *MCPServer) validate(name string, allowed []string, p *problems) {
	base := serverPath(name)
	where := "mcp_servers." + name
	if name == "" || strings.ContainsAny(name, "/:\\ \t") {
		p.addf(base, "%s: server name must be non-empty and hold no '/', ':', '\\' or spaces", where)
	}
	if s.Type == "" {
		switch {
		case s.Command != "":
			s.Type = TypeStdio
		case s.URL != "":
			s.Type = TypeStreamableHTTP
		}
	}
	switch s.Type {
	case TypeStdio:
		if s.Command == "" {
			p.addf(base, "%s: stdio server needs a command", where)
		}
		if s.URL != "" {
			p.addf(base+".url", "%s: url is not used by a stdio server", where)
		}
		if len(allowed) > 0 && s.Command != "" && !slices.Contains(allowed, filepath.Base(s.Command)) {
			p.addf(base+".command", "%s: command %q is not in extensions.allowed_commands %v", where, s.Command, allowed)
		}
	case TypeStreamableHTTP, TypeSSE:
		if s.URL == "" {
			p.addf(base, "%s: %s server needs a url", where, s.Type)
		} else if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.addf(base+".url", "%s: url %q must be an http or https URL", where, s.URL)
		}
		if s.Command != "" {
			p.addf(base+".command", "%s: command is not used by a %s server", where, s.Type)
		}
	case "":
		p.addf(base, "%s: needs a command (stdio) or a url (streamable-http, sse)", where)
	default:
		p.addf(base+".type", "%s: unknown type %q (want stdio, streamable-http or sse)", where, s.Type)
	}
	switch s.Scope {
	case "", "pool", "session":
	default:
		p.addf(base+".scope", "%s: unknown scope %q (want pool or session)", where, s.Scope)
	}
	switch s.Retry.Calls {
	case "", "safe", "always", "never":
	default:
		p.addf(base+".retry.calls", "%s: unknown retry.calls %q (want safe, always or never)", where, s.Retry.Calls)
	}
	if s.Retry.Attempts < 0 || s.Retry.Backoff < 0 || s.Timeout < 0 {
		p.addf(base, "%s: retry.attempts, retry.backoff and timeout must not be negative", where)
	}
	if s.Lazy && len(s.Tools) == 0 {
		p.addf(base+".lazy", "%s: a lazy server needs its tools declared statically (tools:)", where)
	}
	for i, t := range s.Tools {
		if t.Name == "" {
			p.addf(fmt.Sprintf("%s.tools[%d]", base, i), "%s.tools[%d]: a tool needs a name", where, i)
		}
	}
	for _, t := range s.AllowTools {
		if slices.Contains(s.DenyTools, t) {
			p.addf(base+".deny_tools", "%s: tool %q is both allowed and denied", where, t)
		}
	}
}
