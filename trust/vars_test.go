package trust

import (
	"slices"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// Vars names every variable an expanded field refers to, a default's included, once each,
// and not a literal "$${X}" or a field that is never expanded.
func TestDeclVars(t *testing.T) {
	d := Decl{Name: "s", Server: decl.Server{
		Command: "${CMD}", Args: []string{"--token=${TOK:-${FALLBACK}}", "$${LITERAL}", "$HOME"},
		Env: map[string]string{"K": "${ENVV}", "${NOTAKEY}": "x"}, URL: "https://${HOST}/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${HDR}"}, Cwd: "${DIR}/x",
		Auth: &decl.Auth{Type: "client_credentials", ClientSecret: "${SECRET}", ClientID: "${TOK}"},
	}}
	want := []string{"CMD", "DIR", "ENVV", "FALLBACK", "HDR", "HOST", "SECRET", "TOK"}
	if got := d.Vars(); !slices.Equal(got, want) {
		t.Errorf("Vars() = %v, want %v", got, want)
	}
}
