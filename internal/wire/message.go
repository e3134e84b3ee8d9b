package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Message is one JSON-RPC 2.0 message as read: a request (Method set and an id), a
// notification (Method set, no id) or a response (no method, an id, a result or an error).
// ID, Params and Result are the bytes as they came (not copied: they alias what was decoded).
type Message struct {
	// ID is the id's JSON text; nil when the message has none or it is null.
	ID json.RawMessage
	// Method is the method name; HasMethod tells an empty name from an absent one.
	Method    string
	HasMethod bool
	// Params is the params value as it came (null included), nil when absent.
	Params json.RawMessage
	// Result is the result value as it came (null included), nil when absent.
	Result json.RawMessage
	// Error is the error object of a response, nil when absent or null.
	Error *jsonrpc.Error

	id jsonrpc.ID // ID as the go-sdk holds it
}

// IsRequest reports whether m is a request: a method and an id.
func (m *Message) IsRequest() bool { return m.HasMethod && m.ID != nil }

// IsNotification reports whether m is a notification: a method and no id.
func (m *Message) IsNotification() bool { return m.HasMethod && m.ID == nil }

// IsResponse reports whether m is a response: no method.
func (m *Message) IsResponse() bool { return !m.HasMethod }

// SDKID returns m's id as the go-sdk's jsonrpc package holds it (an int64 for a number, as
// the go-sdk truncates one; a string for a string); the zero ID when m has none.
func (m *Message) SDKID() jsonrpc.ID { return m.id }

// SDK returns m as the go-sdk's jsonrpc.DecodeMessage returns the same bytes: a
// *jsonrpc.Request or a *jsonrpc.Response.
func (m *Message) SDK() jsonrpc.Message {
	if m.HasMethod {
		return &jsonrpc.Request{ID: m.id, Method: m.Method, Params: m.Params}
	}
	r := &jsonrpc.Response{ID: m.id, Result: m.Result}
	if m.Error != nil {
		r.Error = m.Error
	}
	return r
}

// Errors of Decode; each is wrapped with the detail.
var (
	// ErrParse reports data that is not one JSON value (JSON-RPC's parse error).
	ErrParse = errors.New("invalid JSON")
	// ErrInvalid reports JSON that is no JSON-RPC 2.0 message (JSON-RPC's invalid request):
	// no "jsonrpc":"2.0", an id that is no string, number or null, a method that is no
	// string, an error that is no error object, a response without an id, an empty batch.
	ErrInvalid = errors.New("invalid JSON-RPC message")
)

// maxDepth is the deepest nesting of arrays and objects the go-sdk decodes.
const maxDepth = 1000

// IsBatch reports whether data, as sent, is a batch: its first non-space byte opens an array.
func IsBatch(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '['
}

// BatchLen returns how many messages the batch data holds, counted without decoding them
// (nothing is allocated for them), or -1 when data is not a well-formed JSON array. A caller
// that refuses batches past a size counts first, so that the refusal costs no memory.
func BatchLen(data []byte) int {
	if !IsBatch(data) || !json.Valid(data) || checkDepth(data) != nil {
		return -1
	}
	s := scanner{data: data}
	s.space()
	s.i++ // [
	n := 0
	for {
		s.space()
		if s.data[s.i] == ']' {
			return n
		}
		s.skipValue()
		n++
		s.space()
		if s.data[s.i] == ',' {
			s.i++
		}
	}
}

// Decode decodes data, one JSON-RPC message, as the go-sdk's jsonrpc.DecodeMessage does:
// for every input that is one JSON value, Decode fails exactly when the go-sdk does, and
// otherwise m.SDK() equals what it returns. Data that is not one JSON value (trailing bytes
// included) wraps ErrParse; a batch wraps ErrInvalid (use DecodeBatch).
func Decode(data []byte) (Message, error) {
	var m Message
	if !json.Valid(data) {
		return m, fmt.Errorf("%w: %s", ErrParse, syntaxError(data))
	}
	if err := checkDepth(data); err != nil {
		return m, err
	}
	return m, m.decode(data)
}

// DecodeBatch decodes data, one message or a batch of them, as the go-sdk's stdio transport
// reads a line: batch reports whether data was an array, which must hold at least one
// message, each decoded as Decode does.
func DecodeBatch(data []byte) (msgs []Message, batch bool, err error) {
	if !IsBatch(data) {
		m, err := Decode(data)
		if err != nil {
			return nil, false, err
		}
		return []Message{m}, false, nil
	}
	if !json.Valid(data) {
		return nil, true, fmt.Errorf("%w: %s", ErrParse, syntaxError(data))
	}
	if err := checkDepth(data); err != nil {
		return nil, true, err
	}
	s := scanner{data: data}
	s.space()
	s.i++ // [
	for {
		s.space()
		if s.data[s.i] == ']' {
			break
		}
		start := s.i
		s.skipValue()
		var m Message
		if err := m.decode(data[start:s.i]); err != nil {
			return nil, true, err
		}
		msgs = append(msgs, m)
		s.space()
		if s.data[s.i] == ',' {
			s.i++
		}
	}
	if len(msgs) == 0 {
		return nil, true, fmt.Errorf("%w: empty batch", ErrInvalid)
	}
	return msgs, true, nil
}

// syntaxError says why data is not one JSON value.
func syntaxError(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err.Error()
	}
	return "not one JSON value"
}

// checkDepth fails for data nested deeper than the go-sdk decodes.
func checkDepth(data []byte) error {
	depth, str, esc := 0, false, false
	for _, b := range data {
		switch {
		case esc:
			esc = false
		case str:
			switch b {
			case '\\':
				esc = true
			case '"':
				str = false
			}
		case b == '"':
			str = true
		case b == '{' || b == '[':
			if depth++; depth > maxDepth {
				return fmt.Errorf("%w: nested deeper than %d", ErrParse, maxDepth)
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return nil
}

// decode fills m from data, one valid JSON value.
func (m *Message) decode(data []byte) error {
	s := scanner{data: data}
	s.space()
	switch s.data[s.i] {
	case '{':
	case 'n': // null decodes into an empty message, which has no version
		return fmt.Errorf("%w: version %q, want \"2.0\"", ErrInvalid, "")
	default:
		return fmt.Errorf("%w: not an object", ErrInvalid)
	}
	var version, id, method json.RawMessage
	var params, result json.RawMessage
	var errObjs []json.RawMessage // each in turn: a second error object adds to the first
	err := s.object(func(key, value json.RawMessage) error {
		switch string(key) {
		case "jsonrpc":
			version = value
		case "id":
			id = value
		case "method":
			method = value
		case "params":
			params = value
		case "result":
			result = value
		case "error":
			errObjs = append(errObjs, value)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if string(version) == `"2.0"` {
		// as it always comes: no string to make
	} else if v, err := stringValue(version); err != nil {
		return fmt.Errorf("%w: jsonrpc: %w", ErrInvalid, err)
	} else if v != "2.0" {
		return fmt.Errorf("%w: version %q, want \"2.0\"", ErrInvalid, v)
	}
	if err := m.setID(id); err != nil {
		return err
	}
	m.Params, m.Result = params, result
	// Read whatever the message is, as the go-sdk decodes every member before it looks at
	// the method: a request with an error member that is no error object is no message.
	var rpcErr *jsonrpc.Error
	for _, e := range errObjs {
		if rpcErr, err = decodeError(rpcErr, e); err != nil {
			return err
		}
	}
	if method != nil {
		m.HasMethod = true
		if m.Method, err = methodName(method); err != nil {
			return fmt.Errorf("%w: method: %w", ErrInvalid, err)
		}
		m.Result = nil
		return nil
	}
	m.Error = rpcErr
	if m.ID == nil {
		return fmt.Errorf("%w: a response without an id", ErrInvalid)
	}
	m.Params = nil
	return nil
}

// setID reads an id: a string, a number (truncated to an integer, as the go-sdk does), or
// absent/null.
func (m *Message) setID(raw json.RawMessage) error {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	switch c := raw[0]; {
	case c == '"':
		s, err := stringValue(raw)
		if err != nil {
			return fmt.Errorf("%w: id: %w", ErrInvalid, err)
		}
		m.ID, m.id = raw, mustID(s)
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		// Through float64, as the go-sdk reads a number id (an integer past 2^53 loses
		// its last digits there too); ID keeps the text as it came.
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return fmt.Errorf("%w: id %s: %w", ErrInvalid, raw, err)
		}
		m.ID, m.id = raw, mustID(f)
		return nil
	}
	return fmt.Errorf("%w: id %s is no string or number", ErrInvalid, raw)
}

// decodeError reads an error object (code, an integer; message, a string; data) into e, or
// a new one when e is nil, as encoding/json decodes into a pointer; null is nil.
func decodeError(e *jsonrpc.Error, raw json.RawMessage) (*jsonrpc.Error, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("%w: error %s is no object", ErrInvalid, raw)
	}
	if e == nil {
		e = &jsonrpc.Error{}
	}
	s := scanner{data: raw}
	err := s.object(func(key, value json.RawMessage) error {
		switch string(key) {
		case "code":
			if string(value) == "null" {
				return nil
			}
			if err := json.Unmarshal(value, &e.Code); err != nil {
				return fmt.Errorf("%w: error code: %w", ErrInvalid, err)
			}
		case "message":
			if string(value) == "null" {
				return nil
			}
			msg, err := stringValue(value)
			if err != nil {
				return fmt.Errorf("%w: error message: %w", ErrInvalid, err)
			}
			e.Message = msg
		case "data":
			e.Data = value
		}
		return nil
	})
	return e, err
}

// methodName is stringValue of a method: for a method the go-sdk knows, written without
// escapes, the table's own string, none made per message.
func methodName(raw json.RawMessage) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' {
		if name, ok := methodNames[string(raw[1:len(raw)-1])]; ok {
			return name, nil
		}
	}
	return stringValue(raw)
}

// methodNames maps each method of the table to itself.
var methodNames = func() map[string]string {
	names := make(map[string]string, len(methods))
	for name := range methods {
		names[name] = name
	}
	return names
}()

// stringValue reads a JSON string (null reads as "").
func stringValue(raw json.RawMessage) (string, error) {
	if raw == nil || string(raw) == "null" {
		return "", nil
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", fmt.Errorf("%s is no string", raw)
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && ascii(inner) {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// ascii reports whether b is printable ASCII, which a JSON string holds as it is.
func ascii(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// scanner walks a valid JSON text.
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// object calls fn with each member of the object at s.i (keys unescaped, values as they
// are), in order; a key given twice is given twice.
func (s *scanner) object(fn func(key, value json.RawMessage) error) error {
	s.i++ // {
	for {
		s.space()
		if s.data[s.i] == '}' {
			s.i++
			return nil
		}
		start := s.i
		s.skipString()
		key := s.data[start:s.i]
		if inner := key[1 : len(key)-1]; bytes.IndexByte(inner, '\\') < 0 && ascii(inner) {
			key = inner // as it is: no string to make
		} else if k, err := stringValue(key); err != nil {
			return fmt.Errorf("%w: %w", ErrParse, err)
		} else {
			key = json.RawMessage(k)
		}
		s.space()
		s.i++ // :
		s.space()
		vstart := s.i
		s.skipValue()
		if err := fn(key, s.data[vstart:s.i]); err != nil {
			return err
		}
		s.space()
		if s.data[s.i] == ',' {
			s.i++
		}
	}
}

// skipString moves past the string at s.i.
func (s *scanner) skipString() {
	s.i++ // "
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return
		default:
			s.i++
		}
	}
}

// skipValue moves past the value at s.i.
func (s *scanner) skipValue() {
	switch s.data[s.i] {
	case '"':
		s.skipString()
	case '{', '[':
		depth := 0
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
	default: // number, true, false, null
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return
			}
			s.i++
		}
	}
}

// mustID makes the go-sdk's ID of a string or float64, which MakeID always takes.
func mustID(v any) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(v)
	return id
}

// CutResult reads data as a response in the form the go-sdk writes one, without decoding it:
// {"jsonrpc":"2.0","id":"<prefix><n>","result":R} (trailing spaces allowed), n a number as
// NumberedID reads it, R one JSON value. It returns n and R; ok is false for anything else,
// which Decode then reads. Whenever ok is true, Decode reads the id prefix+n and the same
// result, unless R is nested deeper than the go-sdk reads: CutResult sets no limit on nesting.
func CutResult(data []byte, prefix string) (n uint64, result json.RawMessage, ok bool) {
	const head = `{"jsonrpc":"2.0","id":"`
	data = bytes.TrimRight(data, " \t\r")
	if len(data) < len(head)+len(prefix) || string(data[:len(head)]) != head ||
		string(data[len(head):len(head)+len(prefix)]) != prefix || data[len(data)-1] != '}' {
		return 0, nil, false
	}
	rest := data[len(head)+len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return 0, nil, false
	}
	n, ok = number(rest[:end])
	after, found := bytes.CutPrefix(rest[end:], []byte(`","result":`))
	if !ok || !found {
		return 0, nil, false
	}
	result = after[:len(after)-1]
	if !json.Valid(result) {
		return 0, nil, false
	}
	return n, result, true
}

// NumberedID reads id as prefix followed by a number in decimal, as AppendNumberedRequest
// writes one: no sign, no leading zero, at most the largest uint64.
func NumberedID(id, prefix string) (uint64, bool) {
	digits, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return 0, false
	}
	return number([]byte(digits))
}

// number reads b, digits in decimal with no leading zero, as a uint64.
func number(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 || b[0] == '0' && len(b) > 1 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
