package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Event is one server-sent event (text/event-stream), as the go-sdk's mcp.Event.
type Event struct {
	Name  string // the "event" field; "" and "message" carry JSON-RPC messages
	ID    string // the "id" field
	Data  []byte // the "data" fields, joined by newlines
	Retry string // the "retry" field
}

// Message reports whether e carries a JSON-RPC message: an unnamed or "message" event.
func (e *Event) Message() bool { return e.Name == "" || e.Name == "message" }

func (e *Event) empty() bool {
	return e.Name == "" && e.ID == "" && len(e.Data) == 0 && e.Retry == ""
}

// ErrMalformedEvent reports an event stream that is not one: a line that is no field, or an
// event larger than the reader's limit.
var ErrMalformedEvent = errors.New("malformed event stream")

// Field splits one line of an event stream (its line ending removed) as the go-sdk does: the
// name before the first colon and the value after it, spaces trimmed. A comment (a line
// starting with a colon) has the name "". ok is false for a line with no colon.
func Field(line []byte) (name, value []byte, ok bool) {
	name, value, ok = bytes.Cut(line, []byte{':'})
	return name, bytes.TrimSpace(value), ok
}

// EventReader reads the events of an event stream as the go-sdk's client reads them: lines
// end at LF (a CR before it is dropped), a blank line or the end of the stream ends an event,
// data fields are joined by LF, comments and unknown fields are skipped, and empty events are
// not reported.
type EventReader struct {
	br   *bufio.Reader
	max  int // bytes of one event; 0 for no limit
	data []byte
}

// NewEventReader returns a reader of r's events, each at most max bytes as sent (0: no
// limit).
func NewEventReader(r io.Reader, max int) *EventReader {
	return &EventReader{br: bufio.NewReaderSize(r, 16<<10), max: max}
}

// Reset makes r read the events of rd, dropping what it buffered of its stream, so that a
// reader (and its buffer) serves one stream after another. The Data of events returned
// before stays valid.
func (r *EventReader) Reset(rd io.Reader) {
	r.br.Reset(rd)
	r.data = nil
}

// Next returns the next event. Its Data is valid until the next call. At the end of the
// stream it returns io.EOF; an event cut off by the end is returned first, as the go-sdk
// does. Any other error is final.
func (r *EventReader) Next() (Event, error) {
	var ev Event
	hasData := false
	size := 0
	r.data = r.data[:0]
	for {
		line, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it (a large data field), in one growing copy.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if r.max > 0 && size+len(long) > r.max {
					return Event{}, fmt.Errorf("%w: an event exceeds %d bytes", ErrMalformedEvent, r.max)
				}
				line, err = r.br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return Event{}, err
		}
		eof := err != nil
		size += len(line)
		if r.max > 0 && size > r.max {
			return Event{}, fmt.Errorf("%w: an event exceeds %d bytes", ErrMalformedEvent, r.max)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if hasData {
				ev.Data = r.data
			}
			if !ev.empty() {
				return ev, nil
			}
			if eof {
				return Event{}, io.EOF
			}
			size = 0
			continue
		}
		name, value, ok := Field(line)
		if !ok {
			return Event{}, fmt.Errorf("%w: a line that is no field: %.100q", ErrMalformedEvent, line)
		}
		switch string(name) {
		case "event":
			ev.Name = string(value)
		case "id":
			ev.ID = string(value)
		case "retry":
			ev.Retry = string(value)
		case "data":
			if hasData {
				r.data = append(r.data, '\n')
			}
			r.data = append(r.data, value...)
			hasData = true
		}
		if eof {
			if hasData {
				ev.Data = r.data
			}
			if ev.empty() {
				return Event{}, io.EOF
			}
			return ev, nil
		}
	}
}

// AppendEvent appends e in the event-stream format: its name, id and retry when set, then its
// data, one data field per line of it, then the blank line that ends it. EventReader (and the
// go-sdk) read back the same event.
func AppendEvent(b []byte, e Event) []byte {
	if e.Name != "" {
		b = append(append(append(b, "event: "...), e.Name...), '\n')
	}
	if e.ID != "" {
		b = append(append(append(b, "id: "...), e.ID...), '\n')
	}
	if e.Retry != "" {
		b = append(append(append(b, "retry: "...), e.Retry...), '\n')
	}
	data := e.Data
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		b = append(append(append(b, "data: "...), bytes.TrimSuffix(line, []byte{'\r'})...), '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(b, '\n')
}

// WriteEvent writes e to w as AppendEvent does, in one Write.
func WriteEvent(w io.Writer, e Event) error {
	_, err := w.Write(AppendEvent(nil, e))
	return err
}

// Responses returns the JSON-RPC responses of an HTTP answer to a POST of the streamable HTTP
// transport: its body when contentType is application/json, the data of its message events
// when it is text/event-stream; messages that are no response (a request or notification the
// server sent during a call) are left out, and so is anything else.
func Responses(contentType string, body []byte) [][]byte {
	var out [][]byte
	eachResponse(contentType, body, func(data []byte) bool {
		out = append(out, bytes.Clone(data))
		return true
	})
	return out
}

// HasResponse reports whether Responses(contentType, body) would return any, copying nothing.
func HasResponse(contentType string, body []byte) bool {
	found := false
	eachResponse(contentType, body, func([]byte) bool {
		found = true
		return false
	})
	return found
}

// eachResponse calls f with each response Responses returns, uncopied, until f returns false.
func eachResponse(contentType string, body []byte, f func(data []byte) bool) {
	keep := func(data []byte) bool {
		if m, err := Decode(data); err == nil && m.IsResponse() {
			return f(data)
		}
		return true
	}
	switch base, _, _ := strings.Cut(contentType, ";"); strings.TrimSpace(base) {
	case "application/json":
		keep(body)
	case "text/event-stream":
		r := NewEventReader(bytes.NewReader(body), 0)
		for {
			ev, err := r.Next()
			if ev.Message() && len(ev.Data) > 0 && !keep(ev.Data) {
				return
			}
			if err != nil {
				return
			}
		}
	}
}
