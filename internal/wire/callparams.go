package wire

import (
	"encoding/json"
	"strings"
)

// CallParams are the members of a tools/call request's params that a pass-through reads.
type CallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
}

// DecodeCallParams reads params, one valid JSON value (a decoded Message's Params), as
// json.Unmarshal into a CallParams would, and fails exactly when it would. The usual form (an
// object whose members are named exactly name, arguments and _meta, and others that fold to
// none of them) is read by hand, without reflection, Arguments and Meta aliasing params;
// anything else is left to json.Unmarshal. No params (nil or empty) are the zero CallParams.
func DecodeCallParams(params json.RawMessage) (CallParams, error) {
	if len(params) == 0 {
		return CallParams{}, nil
	}
	if p, ok := cutCallParams(params); ok {
		return p, nil
	}
	var p CallParams // on the heap, but only here
	err := json.Unmarshal(params, &p)
	return p, err
}

// cutCallParams is DecodeCallParams's hand-read form; ok is false for anything else.
func cutCallParams(params json.RawMessage) (p CallParams, ok bool) {
	s := scanner{data: params}
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != '{' {
		return p, false
	}
	ok = true
	err := s.object(func(key, value json.RawMessage) error {
		switch string(key) {
		case "name":
			if string(value) == "null" {
				return nil // json.Unmarshal leaves the string as it was
			}
			if value[0] != '"' {
				ok = false
				return nil
			}
			name, err := stringValue(value)
			if err != nil {
				ok = false
			}
			p.Name = name
		case "arguments":
			p.Arguments = value
		case "_meta":
			p.Meta = value
		default:
			k := string(key)
			if strings.EqualFold(k, "name") || strings.EqualFold(k, "arguments") || strings.EqualFold(k, "_meta") {
				ok = false // json.Unmarshal matches member names without regard to case
			}
		}
		return nil
	})
	return p, ok && err == nil
}

// PlainID reports whether raw, a request id, is one a pass-through echoes as it came: a string
// or an integer.
func PlainID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case c == '-' || (c >= '0' && c <= '9'):
		for _, b := range raw[1:] {
			if b < '0' || b > '9' {
				return false
			}
		}
		return true
	}
	return false
}

// PlainMeta reports whether a request's _meta asks for nothing a pass-through cannot give: no
// progress token, no per-request protocol version (SEP-2575, which the go-sdk refuses). It
// reads _meta as the go-sdk does, into a map: member names match exactly, and of a name given
// twice the last counts.
func PlainMeta(meta json.RawMessage) bool {
	if len(meta) == 0 || string(meta) == "null" {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return false // malformed: the go-sdk reports it
	}
	token, version := m["progressToken"], m["io.modelcontextprotocol/protocolVersion"]
	return (len(token) == 0 || string(token) == "null") && len(version) == 0
}

// AcceptsJSON reports whether the values of an Accept header admit an application/json answer.
func AcceptsJSON(values []string) bool {
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*", "*/*":
				return true
			}
		}
	}
	return false
}
