package config

import (
	"strings"
	"testing"
)

// TestUnreadKeyDoesNotHideUnrelatedProblem: a value of the wrong kind (env as a list) leaves
// out only the problems it causes; the server's name containing the unread key's name ("env")
// does not hide that the server has no command.
func TestUnreadKeyDoesNotHideUnrelatedProblem(t *testing.T) {
	data := `mcp_servers:
  dev-env:
    env: [A=1]
`
	_, err := Parse("cfg.yaml", []byte(data))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"mcp_servers.dev-env.env: want a mapping", "mcp_servers.dev-env: needs a command"} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
}
