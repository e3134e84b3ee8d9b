package connpool

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// Progress notifications are delivered as the transport reads them, not by the go-sdk's
// notification handler. The SDK runs handlers on a goroutine of their own while a response
// completes its call directly on the reading goroutine, so a call could return before the
// progress the server sent ahead of its result had been handed on; a lease that routes a
// call's progress only while the call runs (mcpcap) then lost it, and a gateway forwarding it
// would have had to send progress after the result. Read in transport order, every progress
// notification that precedes a response reaches the observers before the response is
// processed.

// Log messages are delivered the same way and for the same reason: a message a server logs
// during a call reaches the observers before the call's result, so a gateway can send it to
// the client on the call's own stream, ahead of the result.

// tapped reports whether the transport tap delivers notifications of method.
func tapped(method string) bool {
	return method == string(Progress) || method == string(LoggingMessage)
}

// deliverInOrder decodes the params of a notification the tap took and fans them out.
// Malformed params are left to the SDK, which reports them.
func (c *client) deliverInOrder(method string, params json.RawMessage) {
	switch NotificationKind(method) {
	case Progress:
		var p mcp.ProgressNotificationParams
		if err := json.Unmarshal(params, &p); err != nil {
			return
		}
		c.fanout(Notification{Kind: Progress, Params: &p})
	case LoggingMessage:
		var p mcp.LoggingMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return
		}
		c.fanout(Notification{Kind: LoggingMessage, Params: &p})
	}
}

// maxTappedEvent bounds what sseProgressTap buffers of one SSE event: a progress or log notification
// is small, so a bigger event (a large result) is passed over rather than copied.
const maxTappedEvent = 64 << 10

// sseProgressTap taps HTTP responses that are event streams (streamable HTTP and SSE): as the
// SDK reads an SSE body, every complete "message" event carrying a progress or log notification is
// handed to deliver, before the bytes of any later event reach the SDK.
type sseProgressTap struct {
	base    http.RoundTripper
	deliver func(method string, params json.RawMessage)
}

func (t *sseProgressTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		if mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
			resp.Body = &sseTapBody{ReadCloser: resp.Body, deliver: t.deliver}
		}
	}
	return resp, err
}

// mediaType returns the media type of a Content-Type value, lower-cased, without parameters
// (mime.ParseMediaType allocates a map for them on every response).
func mediaType(v string) string {
	t, _, _ := strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// sseTapBody scans the SSE stream it passes through as the SDK does (wire.EventReader's rules,
// applied to the bytes as the SDK reads them): lines end at LF, trailing CRs are trimmed, a
// blank line (or EOF) ends an event, consecutive data fields are joined by LF, and only
// unnamed or "message" events carry messages.
type sseTapBody struct {
	io.ReadCloser
	deliver func(method string, params json.RawMessage)

	line     []byte // the current line, while its event is small enough to matter
	nonBlank bool   // the current line has a byte other than CR
	skip     bool   // the current event is too big to be a progress notification
	big      bool   // the current event is big, but its beginning names a tapped method
	other    bool   // the current event is named, and not "message"
	data     []byte // the current event's data
	hasData  bool
}

func (b *sseTapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	for chunk := p[:n]; len(chunk) > 0; {
		part, rest, eol := bytes.Cut(chunk, []byte{'\n'})
		b.add(part)
		if !eol {
			break
		}
		b.endLine()
		chunk = rest
	}
	if err == io.EOF {
		if b.nonBlank {
			b.endLine()
		}
		b.dispatch()
	}
	return n, err
}

// add takes part of the current line.
func (b *sseTapBody) add(part []byte) {
	if !b.nonBlank && len(bytes.Trim(part, "\r")) > 0 {
		b.nonBlank = true
	}
	if b.skip {
		return
	}
	if size := len(b.line) + len(part) + len(b.data); size > maxTappedEvent {
		if !b.big && size <= maxBigTappedEvent && namesTapped(b.data, b.line, part) {
			b.big = true
		}
		if !b.big || size > maxBigTappedEvent {
			b.skip, b.line = true, b.line[:0]
			return
		}
	}
	b.line = append(b.line, part...)
}

// maxBigTappedEvent bounds what the tap buffers of an event whose beginning names a tapped
// method (a large log message): the SDK's own limit on an event.
const maxBigTappedEvent = mcp.DefaultMaxEventSize

// namesTapped reports whether the beginning of an event, as it crosses maxTappedEvent, names
// a tapped method: a large log message is buffered whole, a large result is passed over. A
// result that merely mentions one is buffered too, then told apart by dispatch.
func namesTapped(parts ...[]byte) bool {
	begin := bytes.Join(parts, nil)
	return bytes.Contains(begin, []byte(`"`+string(Progress)+`"`)) || bytes.Contains(begin, []byte(`"`+string(LoggingMessage)+`"`))
}

// endLine ends the current line: a blank one ends the event, others are fields.
func (b *sseTapBody) endLine() {
	line, blank := bytes.TrimRight(b.line, "\r"), !b.nonBlank
	b.line, b.nonBlank = b.line[:0], false
	if blank {
		b.dispatch()
		return
	}
	if b.skip {
		return
	}
	key, value, _ := wire.Field(line)
	switch string(key) {
	case "event":
		b.other = len(value) > 0 && string(value) != "message"
	case "data":
		if b.hasData {
			b.data = append(b.data, '\n')
		}
		b.data = append(b.data, value...)
		b.hasData = true
	}
}

// dispatch ends the current event, delivering it if it is a progress notification.
func (b *sseTapBody) dispatch() {
	if !b.skip && !b.other && (bytes.Contains(b.data, []byte(`"`+string(Progress)+`"`)) || bytes.Contains(b.data, []byte(`"`+string(LoggingMessage)+`"`))) {
		if m, err := wire.Decode(b.data); err == nil && m.IsNotification() && tapped(m.Method) {
			b.deliver(m.Method, m.Params)
		}
	}
	if b.big {
		b.data, b.line = nil, nil // a large event's buffers are not kept for the next
	}
	b.skip, b.big, b.other, b.data, b.hasData = false, false, false, b.data[:0], false
}
