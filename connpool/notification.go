package connpool

// NotificationKind says which server notification a Notification carries. Its
// value is the MCP method name.
type NotificationKind string

// The server notifications a Conn fans out to its observers.
const (
	ToolsListChanged     NotificationKind = "notifications/tools/list_changed"
	ResourcesListChanged NotificationKind = "notifications/resources/list_changed"
	PromptsListChanged   NotificationKind = "notifications/prompts/list_changed"
	ResourceUpdated      NotificationKind = "notifications/resources/updated"
	LoggingMessage       NotificationKind = "notifications/message"
	Progress             NotificationKind = "notifications/progress"
)

// Notification is one notification from a server, delivered to every lease's
// observers. URI is set for ResourceUpdated. Params is the go-sdk params value
// (for example *mcp.ResourceUpdatedNotificationParams or
// *mcp.ProgressNotificationParams); observers must not modify it.
type Notification struct {
	Kind   NotificationKind
	URI    string
	Params any
}
