package ext

import (
	"context"
	"encoding/json"
)

// Capability is the Go form of the RFC's AbstractCapability: a named unit that owns whatever it
// started. Everything else a capability can do (contribute tools, instructions, skills,
// resources, commands, completions, health, change notification) is an optional interface
// found by type assertion, the database/sql and Caddy way.
//
// The lifecycle contract, checked for every capability in the tree by package ext/exttest:
//   - Close releases what the capability holds. It is safe to call on a capability that was
//     never used, twice, and concurrently; every call returns once the capability is closed or
//     ctx ends (then with ctx's error).
//   - After Close, every method that does work returns an error wrapping ErrClosed; Name still
//     answers.
type Capability interface {
	// Name identifies the capability within its scope slot, e.g. "skills" or an MCP server name.
	Name() string
	Close(ctx context.Context) error
}

// ToolProvider is implemented by capabilities that contribute tools to an agent's toolset.
type ToolProvider interface {
	// Tools returns the tools the capability serves now, named as CallTool expects them (see
	// ToolName). A capability that cannot list (an unreachable or degraded server) returns an
	// error; the view reports it and leaves the capability's tools out.
	Tools(ctx context.Context) ([]ToolEntry, error)
	// CallTool calls one of the tools returned by Tools. An unknown name is ErrNotFound.
	CallTool(ctx context.Context, call *ToolCall) (*ToolResult, error)
}

// ToolBlocker is an optional interface of a ToolProvider that keeps some of its tools out of
// Tools (definitions that changed since the user approved them, package pin): BlockedTool
// returns why a call to name (as Tools would name it) is refused, or nil when name is not
// one of them. A view asks it for a name it does not list, so the caller learns why.
type ToolBlocker interface {
	BlockedTool(name string) error
	// BlockedTools returns the names of the tools kept out of the last listing, sorted.
	BlockedTools() []string
}

// RawToolCaller is an optional interface of a ToolProvider that serves its tools from an MCP
// server: CallToolRaw makes the call as CallTool does and returns the tools/call result as
// JSON, as the server wrote it, so that a gateway forwarding the call to its own MCP client
// neither decodes nor re-encodes it. call.Progress is not supported (a gateway passing a
// progress token uses CallTool).
type RawToolCaller interface {
	CallToolRaw(ctx context.Context, call *ToolCall) (json.RawMessage, error)
}

// RootsWatcher is an optional interface of a capability backed by an MCP server that may ask
// its client for roots: RootsChanged tells the server the client's roots changed
// (notifications/roots/list_changed), so that it asks again. A capability not connected has
// nothing to tell and returns nil.
type RootsWatcher interface {
	RootsChanged(ctx context.Context) error
}

// Instructor is implemented by capabilities that add to the system prompt.
type Instructor interface {
	Instructions(ctx context.Context) (Instructions, error)
}

// Instructions is a capability's contribution to the system prompt, split so prompt caches can
// reuse the static part: Static changes only when the capability's content changes (a skill
// catalogue), Dynamic may change every turn (the full text of skills selected for it).
type Instructions struct {
	Static  string `json:"static,omitempty"`
	Dynamic string `json:"dynamic,omitempty"`
	// Catalogue, when set, describes Static as a catalogue kept within a budget.
	Catalogue *Catalogue `json:"catalogue,omitempty"`
}

// TurnInstructor is implemented by capabilities whose dynamic instructions depend on the turn,
// such as a skill manager with a matcher that picks skills for the user's prompt.
type TurnInstructor interface {
	TurnInstructions(ctx context.Context, prompt string) (string, error)
}

// Composite is implemented by capabilities that hold children (a skill's own MCP servers).
// The registry records these edges at registration to reject cycles and warn on depth.
type Composite interface {
	Children() []Capability
}

// Originator is implemented by capabilities that know where their content comes from. An
// origin given at registration (WithOrigin) takes precedence; a capability that says nothing
// and is registered without one is OriginLocal.
type Originator interface {
	Origin() Origin
}

// SkillResource provides skills: SKILL.md files and the other files of each skill.
type SkillResource interface {
	ListSkills(ctx context.Context) ([]SkillEntry, error)
	// ReadSkill reads skill://<name>/<path>. A URI the capability does not have is ErrNotFound;
	// a path leaving the skill's root is ErrPathTraversal.
	ReadSkill(ctx context.Context, uri string) ([]ResourceContents, error)
	// SkillExists is the cheap check made before ReadSkill when routing a URI.
	SkillExists(ctx context.Context, uri string) (bool, error)
}

// ResourceSource provides MCP-style resources.
type ResourceSource interface {
	ListResources(ctx context.Context) ([]ResourceEntry, error)
	// ReadResource reads a resource. A URI the capability does not have is ErrNotFound.
	ReadResource(ctx context.Context, uri string) ([]ResourceContents, error)
	// ResourceExists is the cheap check made before ReadResource when routing a URI.
	ResourceExists(ctx context.Context, uri string) (bool, error)
}

// ResourceTemplateSource is implemented by sources that offer resource templates.
type ResourceTemplateSource interface {
	ListResourceTemplates(ctx context.Context) ([]ResourceTemplateEntry, error)
}

// ResourceBlocker is an optional interface of a ResourceSource that keeps some of its resource
// templates or skills out of its listings (definitions that changed since the user approved
// them, package pin): BlockedResource returns why reading uri (as ReadResource takes it) is
// refused when a template kept out matches it or it is a file of a skill kept out, or nil. A view asks it about a URI
// whose read found nothing, so the caller learns why.
type ResourceBlocker interface {
	BlockedResource(uri string) error
}

// SchemeSource is implemented by resource sources that learn their URI schemes at run time, such
// as an MCP server serving its own "test://" or "file://" resources. ResolveURI asks the visible
// SchemeSources about a scheme that no registration (WithSchemes) names. Schemes are lower case.
//
// ResourceSchemes reports the schemes the source knows now and must not start a process or open
// a connection to learn them: every visible SchemeSource is asked on every URI of an unregistered
// scheme, so a typo must not start every configured server. A source that has not learnt its
// schemes yet (not connected) returns none; one with a live connection may list on it.
type SchemeSource interface {
	ResourceSchemes(ctx context.Context) ([]string, error)
}

// ResourceSubscriber is implemented by sources whose resources can be watched one by one (MCP
// resources/subscribe). An update is reported as a ResourcesChanged event with SourceURI set.
type ResourceSubscriber interface {
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
}

// MCPResource is the RFC's McpResource: tools and resources, as an MCP server provides them.
type MCPResource interface {
	ToolProvider
	ResourceSource
}

// CommandResource provides user-triggered commands (slash commands, MCP prompts).
type CommandResource interface {
	ListCommands(ctx context.Context) ([]CommandEntry, error)
	// GetCommand expands a command with its arguments into prompt messages. req.Name may be the
	// plain or the qualified name. An unknown command is ErrNotFound.
	GetCommand(ctx context.Context, req *CommandRequest) (*PromptResult, error)
}

// CommandBlocker is an optional interface of a CommandResource that keeps some of its
// commands out of ListCommands (prompts that changed since the user approved them, package
// pin): BlockedCommand returns why getting name (as ListCommands would name it, or its
// qualified name) is refused, or nil when name is not one of them.
type CommandBlocker interface {
	BlockedCommand(name string) error
}

// Completer is implemented by capabilities that complete prompt or resource-template arguments
// (MCP completion/complete).
type Completer interface {
	Complete(ctx context.Context, req *CompleteRequest) (*CompleteResult, error)
}

// HealthReporter is implemented by capabilities with a connection whose state can change (an
// MCP server). Health does no I/O.
type HealthReporter interface {
	Health() Health
}

// ChangeObservable is implemented by capabilities whose content can change while they run.
//
// Observe registers fn to be called for every change until stop is called. fn is called
// synchronously by the producer and must not block; stop is idempotent. Notifier implements it.
type ChangeObservable interface {
	Observe(fn func(ChangeEvent)) (stop func())
}
