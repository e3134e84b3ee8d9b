package decl

import (
	"fmt"
	"log/slog"
	"time"
)

// Transport types, the values of Server.Type.
const (
	TypeStdio          = "stdio"
	TypeStreamableHTTP = "streamable-http"
	TypeSSE            = "sse"
)

// Scopes, the values of Server.Scope.
const (
	// ScopePool shares one connection per declaration across the whole pool.
	ScopePool = "pool"
	// ScopeSession gives each session its own connection, so a stateful server is never
	// shared between sessions.
	ScopeSession = "session"
)

// Call-retry policies, the values of Retry.Calls.
const (
	// CallsSafe retries a call cut off by a lost connection only when the tool is annotated
	// readOnlyHint or idempotentHint. It is the default.
	CallsSafe = "safe"
	// CallsAlways retries every call cut off by a lost connection.
	CallsAlways = "always"
	// CallsNever never retries a call that may have reached the server.
	CallsNever = "never"
)

// Pin policies, the values of Server.Pins (and of the config's top-level pins key): what
// happens when a server's tools, prompts or templates differ from those the user approved
// (package pin).
const (
	// PinsOff neither pins nor compares.
	PinsOff = "off"
	// PinsWarn serves what the server lists and reports each difference once: the default
	// of the user's own servers.
	PinsWarn = "warn"
	// PinsBlock keeps changed and new definitions out until approved: the default of a
	// trusted project's servers.
	PinsBlock = "block"
)

// Retry.Attempts bounds.
const (
	// DefaultAttempts is what a zero Retry.Attempts means.
	DefaultAttempts = 3
	// MaxAttempts bounds Retry.Attempts: the backoff doubles per attempt and would overflow.
	MaxAttempts = 20
)

// Server is one MCP server as it is declared (DESIGN.md "MCP servers", config per server).
// Its YAML keys are those of an mcp_servers entry; its JSON keys are the same. Validate
// checks it and fills in the type its command or url implies.
//
// %v, %+v and %#v of a Server, and slog, print String: nothing that may be secret.
type Server struct {
	// Type is TypeStdio, TypeStreamableHTTP or TypeSSE; Validate fills it in from Command
	// (stdio) or URL (streamable-http) when empty.
	Type string `yaml:"type" json:"type"`
	// Command, Args, Env and Cwd start a stdio server. The server does not inherit
	// agentpool's environment, only a minimal set (see connpool) and Env.
	Command string            `yaml:"command" json:"command,omitempty" config:"expand"`
	Args    []string          `yaml:"args" json:"args,omitempty" config:"expand"`
	Env     map[string]string `yaml:"env" json:"env,omitempty" config:"expand"`
	Cwd     string            `yaml:"cwd" json:"cwd,omitempty" config:"expand,path"`
	// EnvPassthrough names variables of agentpool's environment to pass to a stdio server as
	// they are (an API key the server needs), when set.
	EnvPassthrough []string `yaml:"env_passthrough" json:"env_passthrough,omitempty"`
	// URL and Headers reach an HTTP server; Headers go on every request.
	URL     string            `yaml:"url" json:"url,omitempty" config:"expand"`
	Headers map[string]string `yaml:"headers" json:"headers,omitempty" config:"expand"`
	// Auth makes agentpool the HTTP server's OAuth client (see Auth); nil: none.
	Auth *Auth `yaml:"auth" json:"auth,omitempty"`
	// Lazy defers connecting to the first call; Tools are listed until then (without them,
	// the tools the server listed in an earlier run, when cached; with neither, the first
	// listing connects), and no resources, prompts or skills.
	Lazy  bool         `yaml:"lazy" json:"lazy,omitempty"`
	Tools []StaticTool `yaml:"tools" json:"tools,omitempty"`
	// Scope is ScopePool (default) or ScopeSession.
	Scope string `yaml:"scope" json:"scope,omitempty"`
	// Prefix is prepended to the server's tool names. Nil (no prefix key) leaves the choice to
	// whoever builds the capability (the host uses "<server>__"); "" means raw names.
	Prefix *string `yaml:"prefix" json:"prefix,omitempty"`
	// AllowTools and DenyTools filter the server's tools by path.Match pattern; deny wins.
	AllowTools []string `yaml:"allow_tools" json:"allow_tools,omitempty"`
	DenyTools  []string `yaml:"deny_tools" json:"deny_tools,omitempty"`
	// Timeout bounds each call; zero means the capability's default.
	Timeout time.Duration `yaml:"timeout" json:"timeout,omitempty"`
	// StartupTimeout bounds one start (spawn or connect, and initialize); zero means the
	// pool's default. It is separate from Timeout: a first `npx -y` download is slow, and a
	// start that runs out of it is not retried within the same request.
	StartupTimeout time.Duration `yaml:"startup_timeout" json:"startup_timeout,omitempty"`
	// Retry is the reconnect and call-retry policy.
	Retry Retry `yaml:"retry" json:"retry,omitzero"`
	// HiddenText is what to do with a definition of the server (tool, prompt, resource,
	// template, its instructions, its skills) whose text holds hidden text (package
	// hiddentext): HiddenTextSanitize or HiddenTextBlock; "" means the config's
	// extensions.hidden_text, itself sanitize by default.
	HiddenText string `yaml:"hidden_text" json:"hidden_text,omitempty"`
	// Pins is the pin policy (PinsOff, PinsWarn, PinsBlock); "" means the config's default.
	Pins string `yaml:"pins" json:"pins,omitempty"`
	// Sandbox confines a stdio server (package sandbox); nil means the config's default.
	Sandbox *Sandbox `yaml:"sandbox" json:"sandbox,omitempty"`
	// Permission is what an editor's session (agentpool acp) does before a call of one of
	// the server's tools (see Permission); nil: ask unless the tool is annotated read-only.
	Permission *Permission `yaml:"permission" json:"permission,omitempty"`
}

// Values of Server.HiddenText (hiddentext.PolicySanitize and hiddentext.PolicyBlock).
const (
	HiddenTextSanitize = "sanitize"
	HiddenTextBlock    = "block"
)

// Retry is the reconnect and call-retry policy of a server: the retry key.
type Retry struct {
	// Attempts is how many connection attempts make one reconnect round; zero means
	// DefaultAttempts, at most MaxAttempts.
	Attempts int `yaml:"attempts" json:"attempts,omitempty"`
	// Backoff is the delay before the second attempt, doubled before each further one; zero
	// means the capability's default (1s).
	Backoff time.Duration `yaml:"backoff" json:"backoff,omitempty"`
	// Calls is CallsSafe (default), CallsAlways or CallsNever.
	Calls string `yaml:"calls" json:"calls,omitempty"`
}

// StaticTool declares a tool of a lazy server so it can be listed before the server starts.
type StaticTool struct {
	// Name is the tool's name as the server names it (before Prefix). Required.
	Name string `yaml:"name" json:"name"`
	// Description is shown in listings.
	Description string `yaml:"description" json:"description,omitempty"`
	// InputSchema is the tool's JSON Schema; nil means {"type": "object"}.
	InputSchema map[string]any `yaml:"input_schema" json:"input_schema,omitempty"`
	// ReadOnly and Idempotent are the tool's annotations: either lets a call cut off by a
	// lost connection be retried (Retry.Calls CallsSafe).
	ReadOnly   bool `yaml:"read_only" json:"read_only,omitempty"`
	Idempotent bool `yaml:"idempotent" json:"idempotent,omitempty"`
}

// String describes s for messages without anything that may be secret: its type and command,
// or its URL redacted (RedactURL); arguments, env, header and auth values are left out.
func (s Server) String() string {
	if s.Command != "" {
		return fmt.Sprintf("%s server (command %q)", s.Type, s.Command)
	}
	return fmt.Sprintf("%s server (url %s)", s.Type, RedactURL(s.URL))
}

// GoString is String: %#v must not print the secrets either.
func (s Server) GoString() string { return s.String() }

// LogValue is String, for slog.
func (s Server) LogValue() slog.Value { return slog.StringValue(s.String()) }
