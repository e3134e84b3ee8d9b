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

// DecodeCallParams reads params, one valid JSON value (a decoded Message's Params), into p as
// json.Unmarshal would, and fails exactly when it would. The usual form (an object whose
// members are named exactly name, arguments and _meta, and others that fold to none of
// them) is read by hand, without reflection, Arguments and Meta aliasing params; anything
// else is left to json.Unmarshal.
func DecodeCallParams(params json.RawMessage, p *CallParams) error {
	if q, ok := cutCallParams(params); ok {
		*p = q
		return nil
	}
	return json.Unmarshal(params, p)
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
