package connpool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// Transport types accepted in ServerConfig.Type (decl's).
const (
	TypeStdio          = decl.TypeStdio
	TypeStreamableHTTP = decl.TypeStreamableHTTP
	TypeSSE            = decl.TypeSSE
)

// DefaultStartTimeout bounds spawn, connect and initialize when
// ServerConfig.StartupTimeout is zero.
const DefaultStartTimeout = 30 * time.Second

// ServerConfig describes one MCP server the pool can connect to: its declaration, and the
// name it is known by. The zero value is invalid; see Validate.
type ServerConfig struct {
	// Name is used in messages only; it is not part of the fingerprint, so two
	// configs that differ only by Name share a client.
	Name string
	// Server is the declaration. The pool reads what decides the server and how to reach it:
	//
	//   - Type: "stdio", "streamable-http" or "sse". Empty means "stdio" when Command is set
	//     and "streamable-http" when URL is set.
	//   - Command, Args, Env, Cwd and EnvPassthrough describe a stdio server. The server does
	//     not inherit this process's environment: it gets HOME, LANG, LC_ALL, LC_CTYPE,
	//     LOGNAME, PATH, SHELL, TERM, TMPDIR, TZ and USER (those that are set), the variables
	//     EnvPassthrough names, and Env, which wins.
	//   - URL and Headers describe an HTTP server (streamable HTTP or SSE). Headers are added
	//     to every HTTP request the client makes.
	//   - Auth, when set, makes the client of an HTTP server an OAuth client: it gets a token
	//     when the server answers 401 and puts it on every request to the server's origin.
	//     Nil: no OAuth (a static Authorization in Headers still works).
	//   - Sandbox, when set and not off, confines a stdio server (package sandbox): it starts
	//     through the sandbox's entry point, so the program must call sandbox.Main first.
	//     Where the kernel lacks what a required sandbox needs, Get fails with an error
	//     wrapping ErrStart, ErrPermanent and sandbox.ErrUnavailable.
	//   - StartupTimeout bounds spawn + connect + initialize; zero means DefaultStartTimeout.
	//     It is not part of the fingerprint.
	//
	// The rest (lazy, tools, scope, prefix, tool filters, timeout, retry) is the
	// capability's, not the pool's: it is neither read nor fingerprinted here.
	decl.Server
}

// transportType returns the effective transport type (Type with its default applied).
func (c ServerConfig) transportType() string {
	if c.Type != "" {
		return c.Type
	}
	if c.Command == "" && c.URL != "" {
		return TypeStreamableHTTP
	}
	return TypeStdio
}

// sandbox returns the server's sandbox, nil when it has none or it is off.
func (c ServerConfig) sandbox() *decl.Sandbox {
	if c.Sandbox == nil || c.Sandbox.Off {
		return nil
	}
	return c.Sandbox
}

func (c ServerConfig) startTimeout() time.Duration {
	if c.StartupTimeout > 0 {
		return c.StartupTimeout
	}
	return DefaultStartTimeout
}

// label names the server in messages: its Name, else its command or its URL redacted.
func (c ServerConfig) label() string {
	switch {
	case c.Name != "":
		return c.Name
	case c.Command != "":
		return c.Command
	default:
		return RedactURL(c.URL)
	}
}

// Fingerprint returns a stable hash (hex) of everything that identifies the
// server: the effective type, command, args, env, env passthrough names, cwd,
// URL, headers, OAuth settings and sandbox (none when off).
// Name and StartupTimeout are excluded, and what only the capability reads. Map order does not matter; argument
// order does. Equal fingerprints mean the pool may share one client.
func (c ServerConfig) Fingerprint() string {
	type kv struct{ K, V string }
	sorted := func(m map[string]string) []kv {
		out := make([]kv, 0, len(m))
		for k, v := range m {
			out = append(out, kv{k, v})
		}
		slices.SortFunc(out, func(a, b kv) int { return strings.Compare(a.K, b.K) })
		return out
	}
	pass := slices.Sorted(slices.Values(c.EnvPassthrough))
	args := c.Args
	if args == nil {
		args = []string{}
	}
	b, _ := json.Marshal(struct {
		Type, Command string
		Args          []string
		Env           []kv
		Cwd, URL      string
		Headers       []kv
		Passthrough   []string
		Auth          []string      `json:",omitempty"`
		Sandbox       *decl.Sandbox `json:",omitempty"`
	}{c.transportType(), c.Command, args, sorted(c.Env), c.Cwd, c.URL, sorted(c.Headers), pass, authFingerprint(c.Auth), c.sandbox()})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// Validate reports the first problem that would stop the pool from starting
// the server, as an error wrapping ErrInvalidConfig that names the server and
// the field: an unknown type, a stdio server without a command, an HTTP server
// without a valid http(s) URL, both a command and a URL, OAuth settings that are incomplete
// or on a stdio server, a negative
// StartupTimeout, NUL bytes, or an env, env passthrough or header name that is
// empty or malformed.
func (c ServerConfig) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("connpool: server %q: %w: %s", c.label(), ErrInvalidConfig, fmt.Sprintf(format, a...))
	}
	if c.StartupTimeout < 0 {
		return bad("negative start timeout %v", c.StartupTimeout)
	}
	if c.Command != "" && c.URL != "" {
		return bad("both command %q and url %s set; a server is either stdio or HTTP", c.Command, RedactURL(c.URL))
	}
	switch t := c.transportType(); t {
	case TypeStdio:
		if c.Command == "" {
			return bad("stdio server needs a command")
		}
		for i, s := range append([]string{c.Command, c.Cwd}, c.Args...) {
			if strings.ContainsRune(s, 0) {
				if i == 0 {
					return bad("command contains a NUL byte")
				}
				return bad("cwd or argument contains a NUL byte")
			}
		}
		for k, v := range c.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
				return bad("invalid env entry %q", k)
			}
		}
		for _, k := range c.EnvPassthrough {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return bad("invalid env passthrough name %q", k)
			}
		}
		if len(c.Headers) > 0 {
			return bad("headers are only valid for HTTP servers")
		}
		if c.Auth != nil {
			return bad("auth is only valid for HTTP servers")
		}
	case TypeStreamableHTTP, TypeSSE:
		if c.URL == "" {
			return bad("%s server needs a url", t)
		}
		// The URL is shown redacted (RedactURL), and url.Parse's message not at all: it
		// quotes the URL, or the part it could not read, which may be a password's start.
		u, err := url.Parse(c.URL)
		if err != nil {
			return bad("url does not parse")
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return bad("url %s: want http:// or https:// with a host", RedactURL(c.URL))
		}
		for k, v := range c.Headers {
			if k == "" || strings.ContainsAny(k, " :\r\n\x00") || strings.ContainsAny(v, "\r\n\x00") {
				return bad("invalid header %q", k)
			}
		}
		if c.Auth != nil {
			if msg := validateAuth(c.Auth); msg != "" {
				return bad("%s", msg)
			}
			for k := range c.Headers {
				if strings.EqualFold(k, "Authorization") {
					return bad("an Authorization header and auth both set; auth puts its own token on every request")
				}
			}
		}
		if len(c.Args) > 0 || len(c.Env) > 0 || len(c.EnvPassthrough) > 0 || c.Cwd != "" {
			return bad("args, env, env passthrough and cwd are only valid for stdio servers")
		}
	default:
		return bad("unknown type %q (want %q, %q or %q)", t, TypeStdio, TypeStreamableHTTP, TypeSSE)
	}
	return nil
}
