package ext

import "fmt"

// OriginKind says what kind of place a capability's content comes from. Routing, tool naming
// and trust depend on it, never on which interfaces a capability implements.
type OriginKind string

// The kinds of origin.
const (
	// OriginLocal is the user's own: their config, their skill folders, folders named on the
	// command line, and what agentpool itself bundles.
	OriginLocal OriginKind = "local"
	// OriginProject is a project's: folders and files under a working directory, which arrive
	// with a clone and are untrusted until the user trusts the project.
	OriginProject OriginKind = "project"
	// OriginRemote is an MCP server: its content is untrusted text, labelled with its origin
	// wherever it reaches a model.
	OriginRemote OriginKind = "remote"
)

// Origin is where a capability's content comes from. Location narrows it: a folder for local
// and project origins, "mcp://<server>" for a remote one.
type Origin struct {
	Kind     OriginKind `json:"kind"`
	Location string     `json:"location,omitempty"`
}

// Remote reports whether the content comes from an MCP server.
func (o Origin) Remote() bool { return o.Kind == OriginRemote }

// Rank orders origins for a name two sources both offer (a skill, tool or command): the
// user's own first, then a project's, then remote, then any other kind. ResolveURI and package
// view both rank by it, so a skill's files are read from the source the view lists it from.
func (o Origin) Rank() int {
	switch o.Kind {
	case OriginLocal:
		return 0
	case OriginProject:
		return 1
	case OriginRemote:
		return 2
	}
	return 3
}

// String returns "kind" or "kind location".
func (o Origin) String() string {
	if o.Location == "" {
		return string(o.Kind)
	}
	return fmt.Sprintf("%s %s", o.Kind, o.Location)
}

// RemoteOrigin is the origin of the MCP server named server.
func RemoteOrigin(server string) Origin {
	return Origin{Kind: OriginRemote, Location: "mcp://" + server}
}

// OriginOf returns c's own origin (Originator), or OriginLocal when it says nothing.
func OriginOf(c Capability) Origin {
	if o, ok := c.(Originator); ok {
		if org := o.Origin(); org.Kind != "" {
			return org
		}
	}
	return Origin{Kind: OriginLocal}
}
