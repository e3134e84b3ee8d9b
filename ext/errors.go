package ext

import "errors"

// Sentinel errors callers branch on with errors.Is. They are always wrapped with the what and
// where, for example `skill "pdf": read skill://pdf/../../x: path traversal`.
var (
	// ErrNotFound reports that a skill, resource, tool, command or capability does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnknownScheme reports a URI whose scheme no visible capability serves.
	ErrUnknownScheme = errors.New("unknown URI scheme")
	// ErrPathTraversal reports a path that leaves the root it must stay in.
	ErrPathTraversal = errors.New("path traversal")
	// ErrCircularComposition reports a capability that would become its own ancestor.
	ErrCircularComposition = errors.New("circular composition")
	// ErrInvalidURI reports a URI that cannot be parsed.
	ErrInvalidURI = errors.New("invalid URI")
	// ErrDuplicate reports a second capability of the same name in the same scope slot.
	ErrDuplicate = errors.New("duplicate capability")
	// ErrClosed reports use of a registry or capability after Close.
	ErrClosed = errors.New("closed")
	// ErrLimit reports a cap reached (a count the configuration bounds): what was refused
	// fails at once, and its message names the cap's config key. A *LimitError matches it.
	ErrLimit = errors.New("limit reached")
)
