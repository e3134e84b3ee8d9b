package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// problems collects errors, each as "name:line:col: what".
type problems struct {
	name string
	root ast.Node // the document's body
	errs []error
}

// at records a problem at node n.
func (p *problems) at(n ast.Node, format string, args ...any) {
	p.errs = append(p.errs, p.positioned(n, fmt.Sprintf(format, args...)))
}

// addKeyed records every problem in err (an errors.Join tree) at the node of its key: the key
// its Key() string method returns, found in the file, or the nearest enclosing key that is
// there (a missing command is reported at its server).
func (p *problems) addKeyed(err error) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			p.addKeyed(e)
		}
		return
	}
	var keyed interface{ Key() string }
	node := p.root
	if errors.As(err, &keyed) {
		node = lookupKey(p.root, keyed.Key())
	}
	p.errs = append(p.errs, p.positioned(node, err.Error()))
}

func (p *problems) positioned(n ast.Node, msg string) error {
	if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > 0 {
		n = m.Values[0].Key // a block mapping's own token is its first colon
	}
	if n != nil {
		if tk := n.GetToken(); tk != nil && tk.Position != nil {
			return fmt.Errorf("%s:%d:%d: %s", p.name, tk.Position.Line, tk.Position.Column, msg)
		}
	}
	return fmt.Errorf("%s: %s", p.name, msg)
}

func (p *problems) err() error { return errors.Join(p.errs...) }

// lookupKey returns the value node at key ("mcp_servers.x.tools[0].name") under n, or the
// deepest node on the way when the rest of the key is not in the file. A mapping key may hold
// dots itself (a server named "a.b"): the longest key that fits is taken.
func lookupKey(n ast.Node, key string) ast.Node {
	found, rest := n, key
	for rest != "" {
		switch v := unwrap(n).(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
			var match *ast.MappingValueNode
			var matchKey string
			for _, mv := range mappingValues(v) {
				k := keyString(mv.Key)
				fits := rest == k || strings.HasPrefix(rest, k+".") || strings.HasPrefix(rest, k+"[")
				if fits && (match == nil || len(k) > len(matchKey)) {
					match, matchKey = mv, k
				}
			}
			if match == nil || match.Value == nil {
				return found
			}
			n, rest = match.Value, strings.TrimPrefix(rest[len(matchKey):], ".")
		case *ast.SequenceNode:
			end := strings.IndexByte(rest, ']')
			if !strings.HasPrefix(rest, "[") || end < 0 {
				return found
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 || i >= len(v.Values) || v.Values[i] == nil {
				return found
			}
			n, rest = v.Values[i], strings.TrimPrefix(rest[end+1:], ".")
		default:
			return found
		}
		found = n
	}
	return found
}

// decodeError turns an error of the decoder into "name:line:col: key: message": the key is
// the one at the error's position under root (an unknown key, or the value of the wrong
// kind), and the Go struct field the value was meant for, which the message names and which
// means nothing to whoever wrote the file, is left out.
func decodeError(name string, root ast.Node, err error) error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return yamlError(name, err)
	}
	tk := ye.GetToken()
	if tk == nil || tk.Position == nil {
		return yamlError(name, err)
	}
	msg := goField.ReplaceAllString(ye.GetMessage(), "into ")
	if key, ok := keyAt(root, "", tk.Position); ok && key != "" {
		msg = key + ": " + msg
	}
	return fmt.Errorf("%s:%d:%d: %s", name, tk.Position.Line, tk.Position.Column, msg)
}

// goField matches the Go destination in go-yaml's "cannot unmarshal X into Go struct field
// Config.MCPServers of type bool" and "… into Go value of type int".
var goField = regexp.MustCompile(`into Go (struct field \S+ of type|value of type) `)

// keyAt returns the key ("mcp_servers.x.env.A", "skills.dirs[1]") of the mapping key or
// value that starts at pos under n, key being n's own.
func keyAt(n ast.Node, key string, pos *token.Position) (string, bool) {
	if n == nil {
		return "", false
	}
	switch v := unwrap(n).(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		for _, mv := range mappingValues(v) {
			at := joinKey(key, keyString(mv.Key))
			if samePos(mv.Key, pos) {
				return at, true
			}
			if k, ok := keyAt(mv.Value, at, pos); ok {
				return k, true
			}
		}
	case *ast.SequenceNode:
		for i, e := range v.Values {
			if k, ok := keyAt(e, fmt.Sprintf("%s[%d]", key, i), pos); ok {
				return k, true
			}
		}
	}
	return key, samePos(n, pos)
}

func samePos(n ast.Node, pos *token.Position) bool {
	if n == nil {
		return false
	}
	tk := n.GetToken()
	return tk != nil && tk.Position != nil && tk.Position.Line == pos.Line && tk.Position.Column == pos.Column
}

// yamlError turns a go-yaml error into "name:line:col: message".
func yamlError(name string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			return fmt.Errorf("%s:%d:%d: %s", name, tk.Position.Line, tk.Position.Column, ye.GetMessage())
		}
		return fmt.Errorf("%s: %s", name, ye.GetMessage())
	}
	return fmt.Errorf("%s: %w", name, err)
}
