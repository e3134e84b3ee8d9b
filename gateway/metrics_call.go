package gateway

import (
	"bytes"
	"context"
	"log/slog"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// callOutcome is how a tool call ended, for its metrics and its log line.
type callOutcome uint8

const (
	callOK        callOutcome = iota // a result without isError
	callToolError                    // a result with isError: the tool ran and failed
	callError                        // a JSON-RPC or transport error: no result
)

func (o callOutcome) String() string {
	switch o {
	case callToolError:
		return "tool_error"
	case callError:
		return "error"
	}
	return "ok"
}

// callDone records a call of tool on p that started at start: its metrics, and at debug one
// log line naming the session (a prefix of its id), server, tool, duration and outcome —
// never the arguments or the result, which may hold secrets. Nothing is allocated unless
// debug logging is on.
func (s *session) callDone(ctx context.Context, p ext.ToolProvider, tool string, start time.Time, o callOutcome) {
	m, log := s.g.opts.Metrics, s.g.log
	debug := log.Enabled(ctx, slog.LevelDebug)
	if m == nil && !debug {
		return
	}
	d := time.Since(start)
	var server string // the capability's name: every registered ToolProvider is a Capability
	if c, ok := p.(ext.Capability); ok {
		server = c.Name()
	}
	if m != nil {
		t := m.tool(server, tool)
		t.calls.Inc()
		if o != callOK {
			t.errors.Inc()
		}
		t.duration.Observe(d.Seconds())
	}
	if debug {
		id := s.id
		if len(id) > 12 {
			id = id[:12]
		}
		log.LogAttrs(ctx, slog.LevelDebug, "tool call", slog.String("session", id), slog.String("server", server),
			slog.String("tool", tool), slog.Duration("duration", d), slog.String("outcome", o.String()))
	}
}

// resultOutcome is the outcome of a call that returned res or err (the go-sdk path).
func resultOutcome(res *ext.ToolResult, err error) callOutcome {
	switch {
	case err != nil:
		return callError
	case res != nil && res.IsError:
		return callToolError
	}
	return callOK
}

// isErrorKey is the member of a CallToolResult that marks a tool error.
var isErrorKey = []byte(`"isError"`)

// rawIsError reports whether a CallToolResult, as the upstream wrote it, has "isError": true.
// It looks for the key rather than decoding the result (the pass-through path decodes no
// result): a quote inside a JSON string is escaped, so the key found is a member name; one
// nested in structuredContent would be taken for the result's own, which a server sending
// that cannot expect to be told apart by a counter.
func rawIsError(res []byte) bool {
	for {
		i := bytes.Index(res, isErrorKey)
		if i < 0 {
			return false
		}
		res = bytes.TrimLeft(res[i+len(isErrorKey):], " \t\r\n")
		if len(res) > 0 && res[0] == ':' {
			if bytes.HasPrefix(bytes.TrimLeft(res[1:], " \t\r\n"), []byte("true")) {
				return true
			}
		}
	}
}
