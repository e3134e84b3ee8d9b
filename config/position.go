package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
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
