package mcpcap

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
)

// Servers is the mcp_servers section of the config file: MCP servers by name.
type Servers map[string]ServerSpec

// ServerSpec is one MCP server as the config file declares it (DESIGN.md "MCP servers",
// config per server). Its YAML keys are its own; package config decodes it, expanding ${VAR}
// in the fields tagged config:"expand" and resolving those tagged config:"path" against the
// config file's folder, and calls Validate. Config turns it into what New takes.
type ServerSpec struct {
	// Type is connpool.TypeStdio, TypeStreamableHTTP or TypeSSE; Validate fills it in from
	// Command (stdio) or URL (streamable-http) when empty.
	Type string `yaml:"type"`
	// Command, Args, Env and Cwd start a stdio server. The server does not inherit
	// agentpool's environment, only a minimal set (connpool.ServerConfig.Env) and Env.
	Command string            `yaml:"command" config:"expand"`
	Args    []string          `yaml:"args" config:"expand"`
	Env     map[string]string `yaml:"env" config:"expand"`
	Cwd     string            `yaml:"cwd" config:"expand,path"`
	// EnvPassthrough names variables of agentpool's environment to pass to a stdio server as
	// they are (an API key the server needs), when set.
	EnvPassthrough []string `yaml:"env_passthrough"`
	// URL and Headers reach an HTTP server.
	URL     string            `yaml:"url" config:"expand"`
	Headers map[string]string `yaml:"headers" config:"expand"`
	// Auth makes agentpool the HTTP server's OAuth client (see Auth); nil: none.
	Auth *Auth `yaml:"auth"`
	// Lazy defers connecting to the first call; Tools are listed until then, and no
	// resources, prompts or skills.
	Lazy  bool         `yaml:"lazy"`
	Tools []StaticTool `yaml:"tools"`
	// Scope is ScopePool (default) or ScopeSession.
	Scope string `yaml:"scope"`
	// Prefix is prepended to the server's tool names. Nil (no prefix key) leaves the choice to
	// whoever builds the Cap (the host uses "<server>__", ext.ToolName); "" means raw names.
	Prefix *string `yaml:"prefix"`
	// AllowTools and DenyTools filter the server's tools by path.Match pattern; deny wins.
	AllowTools []string `yaml:"allow_tools"`
	DenyTools  []string `yaml:"deny_tools"`
	// Timeout bounds each call; zero means DefaultTimeout.
	Timeout time.Duration `yaml:"timeout"`
	// StartupTimeout bounds one start (spawn or connect, and initialize); zero means
	// DefaultStartupTimeout. It is separate from Timeout: a first `npx -y` download is slow,
	// and a start that runs out of it is not retried within the same request.
	StartupTimeout time.Duration `yaml:"startup_timeout"`
	// Retry is the reconnect and call-retry policy.
	Retry Retry `yaml:"retry"`
}

// StaticTool declares a tool of a lazy server so it can be listed before the server starts.
type StaticTool struct {
	// Name is the tool's name as the server names it (before Prefix). Required.
	Name string `yaml:"name"`
	// Description is shown in listings.
	Description string `yaml:"description"`
	// InputSchema is the tool's JSON Schema; nil means {"type": "object"}.
	InputSchema map[string]any `yaml:"input_schema"`
	// ReadOnly and Idempotent are the tool's annotations: either lets a call cut off by a
	// lost connection be retried (Retry.Calls "safe").
	ReadOnly   bool `yaml:"read_only"`
	Idempotent bool `yaml:"idempotent"`
}

// Validate checks every server in name order, filling in each one's implied type, and returns
// every problem found (nil when none). Each problem is keyed under key: a server's problems
// under key.<name> (see ServerSpec.Validate).
func (ss Servers) Validate(key string) error {
	var errs []error
	for _, name := range ss.Names() {
		at := key + "." + name
		switch {
		case name == "" || strings.ContainsAny(name, "/:\\ \t"):
			errs = append(errs, keyErrorf(at, "server name must be non-empty and hold no '/', ':', '\\' or spaces"))
		case strings.Contains(name, ext.ToolSep) || strings.HasSuffix(name, ext.ToolSep[:1]):
			// "a__b" + "__" + "t" would read back as server "a", tool "b__t"; "a_" + "__" + "t"
			// as "a", "_t".
			errs = append(errs, keyErrorf(at, "server name must not hold %q or end with %q: %q separates a server's name from its tools' names", ext.ToolSep, ext.ToolSep[:1], ext.ToolSep))
		}
		s := ss[name]
		errs = append(errs, s.Validate(at))
		ss[name] = s
	}
	return errors.Join(errs...)
}

// quoted matches a Go-quoted string ("…" with \" escapes), as url.Parse quotes in its messages.
var quoted = regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`)

// urlProblem says what url.Parse found wrong without any piece of the URL: its message
// names the URL, and quotes the part it could not read ("invalid port \":pa\" after host"),
// which for a '/' written as it is in a password is the password's start.
func urlProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // without the URL
	}
	return quoted.ReplaceAllString(err.Error(), "")
}

// CheckCommands reports every stdio server whose command is not allowed (see
// ServerSpec.CheckCommand), keyed under key.<name>.
func (ss Servers) CheckCommands(key string, allowed []string) error {
	var errs []error
	for _, name := range ss.Names() {
		errs = append(errs, ss[name].CheckCommand(key+"."+name, allowed, ""))
	}
	return errors.Join(errs...)
}

// Names returns the server names in sorted order.
func (ss Servers) Names() []string {
	names := make([]string, 0, len(ss))
	for n := range ss {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Validate checks s and fills in the type its command or url implies. It returns every
// problem found, joined (nil when none); each problem's message starts with the key it
// concerns, key being s's own key ("mcp_servers.x" gives "mcp_servers.x.retry.calls: …"),
// and the problem has a Key() string method returning that key, so that package config can
// place it in the file.
func (s *ServerSpec) Validate(key string) error {
	var errs []error
	add := func(at, format string, a ...any) { errs = append(errs, keyErrorf(at, format, a...)) }
	if s.Type == "" {
		switch {
		case s.Command != "":
			s.Type = connpool.TypeStdio
		case s.URL != "":
			s.Type = connpool.TypeStreamableHTTP
		}
	}
	switch s.Type {
	case connpool.TypeStdio:
		if s.Command == "" {
			add(key, "stdio server needs a command")
		}
		if s.URL != "" {
			add(key+".url", "url is not used by a stdio server")
		}
		if len(s.Headers) > 0 {
			add(key+".headers", "headers are not used by a stdio server")
		}
		if s.Auth != nil {
			add(key+".auth", "auth is not used by a stdio server")
		}
	case connpool.TypeStreamableHTTP, connpool.TypeSSE:
		// The URL itself is never printed: it may carry a secret (user info, a query token).
		if s.URL == "" {
			add(key, "%s server needs a url", s.Type)
		} else if u, err := url.Parse(s.URL); err != nil {
			add(key+".url", "not a valid URL: %s", urlProblem(err))
		} else if u.Scheme != "http" && u.Scheme != "https" {
			add(key+".url", "must be an http or https URL, got scheme %q", u.Scheme)
		} else if u.Host == "" {
			add(key+".url", "must be an http or https URL with a host")
		}
		if s.Auth != nil {
			errs = append(errs, s.Auth.Validate(key+".auth"))
			for h := range s.Headers {
				if strings.EqualFold(h, "Authorization") {
					add(key+".headers", "an Authorization header and auth both set: auth sends its own token")
				}
			}
		}
		for _, f := range []struct {
			key  string
			used bool
		}{{"command", s.Command != ""}, {"args", len(s.Args) > 0}, {"env", len(s.Env) > 0},
			{"env_passthrough", len(s.EnvPassthrough) > 0}, {"cwd", s.Cwd != ""}} {
			if f.used {
				add(key+"."+f.key, "%s is not used by a %s server", f.key, s.Type)
			}
		}
	case "":
		add(key, "needs a command (stdio) or a url (streamable-http, sse)")
	default:
		add(key+".type", "unknown type %q (want stdio, streamable-http or sse)", s.Type)
	}
	for i, name := range s.EnvPassthrough {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			add(fmt.Sprintf("%s.env_passthrough[%d]", key, i), "%q is not a variable name", name)
		}
	}
	switch s.Scope {
	case "", ScopePool, ScopeSession:
	default:
		add(key+".scope", "unknown scope %q (want pool or session)", s.Scope)
	}
	switch s.Retry.Calls {
	case "", CallsSafe, CallsAlways, CallsNever:
	default:
		add(key+".retry.calls", "unknown retry.calls %q (want safe, always or never)", s.Retry.Calls)
	}
	if s.Retry.Attempts < 0 || s.Retry.Attempts > MaxAttempts {
		// Backoff doubles per attempt: beyond MaxAttempts the delay overflows time.Duration.
		add(key+".retry.attempts", "must be between 0 (the default, %d) and %d, got %d", DefaultAttempts, MaxAttempts, s.Retry.Attempts)
	}
	if s.Retry.Backoff < 0 {
		add(key+".retry.backoff", "must not be negative, got %s", s.Retry.Backoff)
	}
	if s.Timeout < 0 {
		add(key+".timeout", "must not be negative, got %s", s.Timeout)
	}
	if s.StartupTimeout < 0 {
		add(key+".startup_timeout", "must not be negative, got %s", s.StartupTimeout)
	}
	if s.Lazy && len(s.Tools) == 0 {
		add(key+".lazy", "a lazy server needs its tools declared statically (tools:)")
	}
	for i, t := range s.Tools {
		at := fmt.Sprintf("%s.tools[%d]", key, i)
		if t.Name == "" {
			add(at, "a tool needs a name")
		}
		if _, err := json.Marshal(t.InputSchema); err != nil {
			add(at+".input_schema", "not representable as JSON: %v", err)
		}
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"allow_tools", s.AllowTools}, {"deny_tools", s.DenyTools}} {
		for i, p := range list.patterns {
			if _, err := path.Match(p, ""); err != nil {
				add(fmt.Sprintf("%s.%s[%d]", key, list.key, i), "bad pattern %q: %v", p, err)
			}
		}
	}
	for _, t := range s.AllowTools {
		if slices.Contains(s.DenyTools, t) {
			add(key+".deny_tools", "tool %q is both allowed and denied", t)
		}
	}
	if errors.Join(errs...) == nil {
		// What only the pool checks (NUL bytes, malformed env and header names), said now. The
		// pool names the server by its name, else by its URL: name it by its key.
		cfg, _ := s.Config(key)
		if err := cfg.Server.Validate(); err != nil {
			// Said without connpool's own prefix, which names the package and the key again.
			msg := err.Error()
			if _, what, ok := strings.Cut(msg, connpool.ErrInvalidConfig.Error()+": "); ok {
				msg = what
			}
			add(key, "%s", msg)
		}
	}
	return errors.Join(errs...)
}

// Config returns the Config New takes for the server named name. Prefix stays nil when s has
// none: the caller decides the default. It fails only for a static tool's input_schema that
// does not marshal to JSON (which Validate reports).
func (s ServerSpec) Config(name string) (Config, error) {
	tools := make([]ext.ToolEntry, 0, len(s.Tools))
	for _, t := range s.Tools {
		schema := t.InputSchema
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		raw, err := json.Marshal(schema)
		if err != nil {
			return Config{}, fmt.Errorf("mcp server %q: tool %q: input_schema: %w", name, t.Name, err)
		}
		entry := ext.ToolEntry{Name: t.Name, Description: t.Description, InputSchema: raw}
		if t.ReadOnly || t.Idempotent {
			entry.Annotations = &ext.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent}
		}
		tools = append(tools, entry)
	}
	var prefix *string
	if s.Prefix != nil {
		p := *s.Prefix
		prefix = &p
	}
	return Config{
		Name: name,
		Server: connpool.ServerConfig{
			Name: name, Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env, EnvPassthrough: s.EnvPassthrough,
			Cwd: s.Cwd, URL: s.URL, Headers: s.Headers, Auth: s.Auth.config(), StartTimeout: s.StartupTimeout,
		},
		Lazy:       s.Lazy,
		Tools:      tools,
		Scope:      s.Scope,
		Prefix:     prefix,
		AllowTools: s.AllowTools,
		DenyTools:  s.DenyTools,
		Timeout:    s.Timeout,
		Retry:      s.Retry,
	}, nil
}

// keyError is one problem of a config key: "<key>: <what>". Key lets package config place it
// in the file without parsing the message.
type keyError struct{ key, msg string }

func keyErrorf(key, format string, a ...any) error {
	return &keyError{key: key, msg: fmt.Sprintf(format, a...)}
}

func (e *keyError) Error() string { return e.key + ": " + e.msg }

// Key returns the YAML key the problem concerns, as in "mcp_servers.x.retry.calls".
func (e *keyError) Key() string { return e.key }

// String describes s for messages without anything that may be secret: its type and command,
// or its URL redacted (connpool.RedactURL); arguments, env and header values are left out.
// %v, %+v and %#v of a ServerSpec print this.
func (s ServerSpec) String() string {
	if s.Command != "" {
		return fmt.Sprintf("%s server (command %q)", s.Type, s.Command)
	}
	return fmt.Sprintf("%s server (url %s)", s.Type, connpool.RedactURL(s.URL))
}

// GoString is String: %#v must not print the secrets either.
func (s ServerSpec) GoString() string { return s.String() }

// LogValue is String, for slog.
func (s ServerSpec) LogValue() slog.Value { return slog.StringValue(s.String()) }
