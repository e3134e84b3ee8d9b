package config

import (
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// ExpandServer expands the values the config expands, and only those, in a copy: the given
// declaration keeps its text; an unset variable is an error keyed where it is.
func TestExpandServer(t *testing.T) {
	env := map[string]string{"BIN": "/bin/x", "TOK": "t0k"}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	in := decl.Server{Command: "${BIN}", Args: []string{"$$HOME", "${MISSING:-d}"}, Env: map[string]string{"A": "${TOK}"},
		Headers: map[string]string{"H": "Bearer ${TOK}"}, URL: "https://h/${TOK}", Cwd: "${BIN}/w",
		AllowTools: []string{"${TOK}"}, Auth: &decl.Auth{Type: decl.GrantClientCredentials, ClientID: "${TOK}", Scopes: []string{"${TOK}"}}}
	out, err := ExpandServer(in, "mcp-servers.s", lookup)
	if err != nil {
		t.Fatal(err)
	}
	if out.Command != "/bin/x" || out.Args[0] != "$HOME" || out.Args[1] != "d" || out.Env["A"] != "t0k" || out.Headers["H"] != "Bearer t0k" ||
		out.URL != "https://h/t0k" || out.Cwd != "/bin/x/w" || out.Auth.ClientID != "t0k" {
		t.Errorf("expanded = %+v %v %v %v %+v", out, out.Args, out.Env, out.Headers, out.Auth)
	}
	if out.AllowTools[0] != "${TOK}" || out.Auth.Scopes[0] != "${TOK}" {
		t.Errorf("a value the config does not expand was expanded: %v %v", out.AllowTools, out.Auth.Scopes)
	}
	if in.Command != "${BIN}" || in.Args[1] != "${MISSING:-d}" || in.Env["A"] != "${TOK}" || in.Auth.ClientID != "${TOK}" {
		t.Errorf("the declaration given was changed: %+v %v %v %+v", in, in.Args, in.Env, in.Auth)
	}
	_, err = ExpandServer(decl.Server{Command: "x", Env: map[string]string{"K": "${NOPE}"}}, "mcp-servers.s", lookup)
	if err == nil || !strings.Contains(err.Error(), "mcp-servers.s.env.K: environment variable NOPE is not set") {
		t.Errorf("unset variable: %v", err)
	}
}
