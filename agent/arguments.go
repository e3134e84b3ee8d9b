package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// notAnObject says precisely why args, which isObject rejected, are not a JSON object: the
// syntax error and its byte offset, or the kind of JSON value they are.
func notAnObject(args json.RawMessage) string {
	var v any
	err := json.Unmarshal(args, &v)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("the arguments are not valid JSON: %s at offset %d (send one JSON object)", strings.TrimPrefix(syn.Error(), "json: "), syn.Offset)
	}
	if err != nil {
		return "the arguments are not valid JSON: " + err.Error()
	}
	kind := "null"
	switch v.(type) {
	case string:
		kind = "a string"
	case float64:
		kind = "a number"
	case bool:
		kind = "a boolean"
	case []any:
		kind = "an array"
	}
	return "the arguments are " + kind + ", not a JSON object"
}
