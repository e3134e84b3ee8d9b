package config

import (
	"fmt"
	"os"
	"strings"
)

// expandEnv replaces ${VAR} and ${VAR:-default} in s. $$ is a literal $. A bare $ not followed
// by { or $ is kept as it is, so shell snippets in args survive.
func expandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("unclosed ${ at offset %d", i)
			}
			expr := s[i+2 : i+2+end]
			name, def, hasDef := strings.Cut(expr, ":-")
			if !validEnvName(name) {
				return "", fmt.Errorf("invalid variable name %q", name)
			}
			v, ok := lookup(name)
			switch {
			case ok && (v != "" || !hasDef):
				b.WriteString(v)
			case hasDef:
				b.WriteString(def)
			default:
				return "", fmt.Errorf("environment variable %s is not set (use ${%s:-default})", name, name)
			}
			i += 2 + end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// expand applies expandEnv to every string value that may carry a variable.
func (c *Config) expand(p *problems) {
	one := func(path string, s *string) {
		v, err := expandEnv(*s, os.LookupEnv)
		if err != nil {
			p.addf(path, "%s: %v", displayPath(path), err)
			return
		}
		*s = v
	}
	for name, s := range c.MCPServers {
		base := serverPath(name)
		one(base+".command", &s.Command)
		one(base+".cwd", &s.Cwd)
		one(base+".url", &s.URL)
		for i := range s.Args {
			one(fmt.Sprintf("%s.args[%d]", base, i), &s.Args[i])
		}
		for k, v := range s.Env {
			one(base+".env."+quoteKey(k), &v)
			s.Env[k] = v
		}
		for k, v := range s.Headers {
			one(base+".headers."+quoteKey(k), &v)
			s.Headers[k] = v
		}
		c.MCPServers[name] = s
	}
	for i := range c.Skills.Dirs {
		one(fmt.Sprintf("$.skills.dirs[%d]", i), &c.Skills.Dirs[i])
	}
	for i := range c.Commands.Dirs {
		one(fmt.Sprintf("$.commands.dirs[%d]", i), &c.Commands.Dirs[i])
	}
}

func serverPath(name string) string { return "$.mcp_servers." + quoteKey(name) }

// quoteKey quotes a map key for a YAML path when it holds characters the path syntax uses.
func quoteKey(k string) string {
	if strings.ContainsAny(k, ".[]'\" *$") {
		return "'" + strings.ReplaceAll(k, "'", "''") + "'"
	}
	return k
}

// displayPath turns "$.mcp_servers.x.command" into "mcp_servers.x.command" for messages.
func displayPath(path string) string { return strings.TrimPrefix(path, "$.") }
