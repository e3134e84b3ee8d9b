package config

import (
	"strings"
	"testing"
)

// A header refused by validation is reported at its own line, not at the headers mapping's
// first one; its value is never shown.
func TestRefusedHeaderPlacedAtItsLine(t *testing.T) {
	data := `mcp_servers:
  remote:
    url: https://h.example/mcp
    headers:
      X-Api-Key: secret-value
      X-Team: platform
      connection: close
      x-team: other
`
	_, err := Parse("cfg.yaml", []byte(data))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"cfg.yaml:7:19: mcp_servers.remote.headers.connection: ",
		"cfg.yaml:8:15: mcp_servers.remote.headers.x-team: ",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "secret") {
		t.Errorf("a header's value is shown:\n%s", msg)
	}
}
