package ext

import (
	"context"
	"encoding/json"
)

// LogMessage is one log message of a capability: an MCP server's notifications/message.
type LogMessage struct {
	// Level is the MCP (syslog) level: debug, info, notice, warning, error, critical, alert,
	// emergency.
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// LogSource is implemented by capabilities that emit log messages (an MCP server).
type LogSource interface {
	// ObserveLog calls fn for every log message until stop is called. fn is called
	// synchronously by the producer, in the order the messages arrived, and must not block;
	// stop is idempotent.
	ObserveLog(fn func(LogMessage)) (stop func())
	// SetLogLevel asks the source to send messages of level and above. A source shared by
	// several callers may keep a more verbose level another caller asked for: callers filter
	// what they receive at their own level.
	SetLogLevel(ctx context.Context, level string) error
}
