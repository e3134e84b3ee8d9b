package config

import (
	"fmt"
	"slices"

	"github.com/agentpool/agentpool/frontmatter"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// A config file's aliases are bounded as a SKILL.md frontmatter's are (package frontmatter
// measures both): a few hundred bytes of anchors and aliases can stand for hundreds of
// millions of values, which every later use of a value expands (a static tool's input_schema
// is turned into JSON). The decoder shares an anchor's value among its aliases, so decoding
// is cheap; the size is measured on that shared value before anything expands it.

// maxAliasDescent bounds how many levels checkAliases descends to name the key at fault.
const maxAliasDescent = 64

// checkAliases returns a problem when body, from a file of n bytes, decodes to more than
// frontmatter.ExpansionLimit(n): the error names the innermost key whose value alone is over
// the limit, so that it is placed in the file.
func checkAliases(body ast.Node, n int) (err error) {
	defer func() {
		if recover() != nil {
			err = nil // the decoder's own pass reports what it chokes on, with a position
		}
	}()
	var all any
	if nodeToValue(body, &all) != nil {
		return nil // the real decode reports it, with a position
	}
	limit := frontmatter.ExpansionLimit(n)
	if frontmatter.ExpandedSize(all, limit) <= limit {
		return nil
	}
	key := bombKey(all, limit)
	if key == "" {
		key = "top level"
	}
	return keyErrorf(key, "YAML aliases expand it to more than %d KiB, from a file of %d bytes; refused (a \"billion laughs\")", limit>>10, n)
}

// bombKey descends from v into the one child whose value alone is over limit, for as long as
// exactly one is, and returns the dotted key reached ("" for v itself). The measuring it does
// is bounded too: a budget of a few times limit, after which the key reached so far is it.
func bombKey(v any, limit int) string {
	key, budget := "", 16*limit
	for range maxAliasDescent {
		var next any
		nextKey, over := "", 0
		measure := func(k string, x any) {
			size := frontmatter.ExpandedSize(x, limit)
			budget -= size
			if size > limit {
				over++
				next, nextKey = x, k
			}
		}
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if measure(joinKey(key, k), t[k]); over > 1 || budget < 0 {
					break
				}
			}
		case []any:
			for i, x := range t {
				if measure(fmt.Sprintf("%s[%d]", key, i), x); over > 1 || budget < 0 {
					break
				}
			}
		}
		if over != 1 || budget < 0 {
			return key
		}
		v, key = next, nextKey
	}
	return key
}

// nodeToValue is yaml.NodeToValue with the decoder's panics turned into an error: goccy/go-yaml
// v1.19.2 dereferences nil when a value with a custom tag is decoded into a list
// ("allowed_commands: !x" over two lines), and a config file must get an error, never crash
// the program.
func nodeToValue(n ast.Node, v any, opts ...yaml.DecodeOption) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML decoder failed on this file (%v): check its tags (!…)", r)
		}
	}()
	return yaml.NodeToValue(n, v, opts...)
}
