package config

import (
	"github.com/google/go-cmp/cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server's auth key: client_id, client_secret and client_metadata_url expand ${VAR},
// private_key_file is resolved against the config's folder, and its problems are placed at
// their keys in the file.
func TestParseAuth(t *testing.T) {
	t.Setenv("AP_CC_SECRET", "cc-s3cret")
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	data := `
mcp_servers:
  m2m:
    url: https://api.example/mcp
    auth:
      type: client_credentials
      client_id: agentpool
      client_secret: ${AP_CC_SECRET}
      scopes: [read, write]
  jwt:
    url: https://api.example/mcp
    auth: {type: client_credentials, client_id: agentpool, token_endpoint_auth: private_key_jwt, private_key_file: keys/k.pem}
  user:
    url: https://user.example/mcp
    auth: {type: authorization_code, redirect_port: 8123}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if a := cfg.MCPServers["m2m"].Auth; a == nil || a.ClientSecret != "cc-s3cret" || strings.Join(a.Scopes, " ") != "read write" {
		t.Errorf("m2m auth = %+v", a)
	}
	if a := cfg.MCPServers["jwt"].Auth; a == nil || a.PrivateKeyFile != filepath.Join(dir, "keys", "k.pem") {
		t.Errorf("jwt auth = %+v", a)
	}
	if a := cfg.MCPServers["user"].Auth; a == nil || a.RedirectPort != 8123 {
		t.Errorf("user auth = %+v", a)
	}

	bad := "mcp_servers:\n  s:\n    url: https://api.example/mcp\n    auth:\n      type: client_credentials\n      client_id: x\n      secret: y\n"
	_, err = Parse("bad.yaml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:7:7") {
		t.Errorf("unknown auth key: %v, want it placed at bad.yaml:7:7", err)
	}
	bad = "mcp_servers:\n  s:\n    command: x\n    auth: {type: authorization_code}\n"
	_, err = Parse("bad.yaml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:4:") || !strings.Contains(err.Error(), "mcp_servers.s.auth") {
		t.Errorf("auth on a stdio server: %v, want it placed at the auth key", err)
	}
}

// server.auth parses with its values expanded; an issuer on a loopback host may be http.
func TestServerAuthParses(t *testing.T) {
	t.Setenv("AP_TEST_ISSUER", "http://127.0.0.1:9000")
	yaml := "server:\n  auth:\n    issuer: ${AP_TEST_ISSUER}\n    resource: https://agentpool.example/\n    audiences: [api://agentpool]\n    scopes: [mcp]\n    agent_scopes: true\n"
	cfg, err := Parse("cfg.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	want := &ServerAuth{Issuer: "http://127.0.0.1:9000", Resource: "https://agentpool.example/", Audiences: []string{"api://agentpool"}, Scopes: []string{"mcp"}, AgentScopes: true}
	if diff := cmp.Diff(want, cfg.Server.Auth); diff != "" {
		t.Errorf("server.auth (-want +got):\n%s", diff)
	}
}
