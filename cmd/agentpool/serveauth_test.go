package main

import (
	"strings"
	"testing"

	"github.com/agentpool/agentpool/config"
)

// serveAuth refuses a non-loopback listener without server.auth.resource (the resource would
// then be the listener's address, which no client names); loopback, or a resource, is fine.
func TestServeAuthNeedsResourceOffLoopback(t *testing.T) {
	t.Parallel()
	a := &config.ServerAuth{Issuer: "https://idp.example", Scopes: []string{"mcp"}}
	for _, addr := range []string{"0.0.0.0:7433", "10.0.0.5:7433", ":7433", "[::]:7433"} {
		if _, err := serveAuth(a, addr, nil); err == nil || !strings.Contains(err.Error(), "server.auth.resource is required") {
			t.Errorf("serve on %s without a resource: %v, want server.auth.resource required", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:7433", "localhost:0", "[::1]:7433"} {
		if got, err := serveAuth(a, addr, nil); err != nil || got == nil || got.Verify == nil {
			t.Errorf("serve on %s: %v, %v", addr, got, err)
		}
	}
	withResource := *a
	withResource.Resource = "https://agentpool.example"
	if _, err := serveAuth(&withResource, "0.0.0.0:7433", nil); err != nil {
		t.Errorf("serve on 0.0.0.0 with a resource: %v", err)
	}
}
