package connpool

import (
	"fmt"
	"log/slog"

	"github.com/agentpool/agentpool/decl"
)

// RedactURL returns raw fit for an error or a log line: its user info, every query value and
// its fragment replaced by REDACTED ("https://REDACTED@host/mcp?token=REDACTED"); a query part
// without a value ("?tok", "?tok=", "?tok==") is replaced whole, since it may be a bare token. Scheme, host and path stay, so
// the server can still be told apart; a secret written into the path is not recognised. A URL
// that does not parse is replaced whole. It is decl.RedactURL.
func RedactURL(raw string) string { return decl.RedactURL(raw) }

// String describes c for messages without anything that may be secret: the server's type,
// name and command, or its URL redacted (RedactURL). Arguments, env and header values are
// left out. %v, %+v and %#v of a ServerConfig print this.
func (c ServerConfig) String() string {
	t := c.transportType()
	if t == TypeStdio {
		return fmt.Sprintf("%s server %q (command %q)", t, c.Name, c.Command)
	}
	return fmt.Sprintf("%s server %q (url %s)", t, c.Name, RedactURL(c.URL))
}

// GoString is String: %#v must not print the secrets either.
func (c ServerConfig) GoString() string { return c.String() }

// LogValue is String, for slog.
func (c ServerConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }
