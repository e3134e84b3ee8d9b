package ext

import (
	"context"
	"encoding/json"
)

// Capability is the Go form of the RFC's AbstractCapability: a named unit that contributes tools
// and instructions to an agent and owns whatever it started.
//
// Close releases what the capability holds. It must be safe to call twice and safe to call on a
// capability that was never used; it should return when ctx ends.
type Capability interface {
	// Name identifies the capability within its scope slot, e.g. "skills" or an MCP server name.
	Name() string
	// Tools returns the tools the capability contributes to a compiled toolset now. A degraded
	// capability returns none.
	Tools(ctx context.Context) ([]ToolEntry, error)
	// CallTool calls one of the tools returned by Tools. An unknown name is ErrNotFound.
	CallTool(ctx context.Context, name string, args json.RawMessage) (*ToolResult, error)
	// Instructions returns what the capability adds to the system prompt.
	Instructions(ctx context.Context) (Instructions, error)
	Close(ctx context.Context) error
}

// Instructions is a capability's contribution to the system prompt, split so prompt caches can
// reuse the static part: Static changes only when the capability's content changes (a skill
// catalogue), Dynamic may change every turn (the full text of skills selected for it).
type Instructions struct {
	Static  string
	Dynamic string
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

// SkillResource provides skills: SKILL.md files and the other files of each skill.
type SkillResource interface {
	ListSkills(ctx context.Context) ([]SkillEntry, error)
	// ReadSkill reads skill://<name>/<path>. A URI the capability does not have is ErrNotFound;
	// a path leaving the skill's root is ErrPathTraversal.
	ReadSkill(ctx context.Context, uri string) ([]ResourceContents, error)
	// SkillExists is the cheap check made before ReadSkill when routing a URI.
	SkillExists(ctx context.Context, uri string) (bool, error)
}

// ToolSource provides MCP-style tools.
type ToolSource interface {
	ListTools(ctx context.Context) ([]ToolEntry, error)
	CallTool(ctx context.Context, name string, args json.RawMessage) (*ToolResult, error)
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

// SchemeSource is implemented by resource sources that learn their URI schemes at run time, such
// as an MCP server serving its own "test://" or "file://" resources. ResolveURI asks the visible
// SchemeSources about a scheme that no registration (WithSchemes) names. Schemes are lower case.
type SchemeSource interface {
	ResourceSchemes(ctx context.Context) ([]string, error)
}

// MCPResource is the RFC's McpResource: tools and resources, as an MCP server provides them.
type MCPResource interface {
	ToolSource
	ResourceSource
}

// CommandResource provides user-triggered commands (slash commands, MCP prompts).
type CommandResource interface {
	ListCommands(ctx context.Context) ([]CommandEntry, error)
	// GetCommand expands a command with its arguments into prompt text. Name may be the plain or
	// the qualified name. An unknown command is ErrNotFound.
	GetCommand(ctx context.Context, name string, args []string) (string, error)
}

// ChangeObservable is implemented by capabilities whose content can change while they run.
//
// Observe registers fn to be called for every change until stop is called. fn is called
// synchronously by the producer and must not block; stop is idempotent. Notifier implements it.
type ChangeObservable interface {
	Observe(fn func(ChangeEvent)) (stop func())
}
