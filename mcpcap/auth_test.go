package mcpcap

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// A server that wants a user's login, which agentpool serve cannot give, is degraded with the
// reason "needs login: run agentpool login SERVER", and is not asked again and again: the
// next accesses fail fast with that reason.
func TestNeedsLoginDegrades(t *testing.T) {
	var mcpRequests atomic.Int32
	var srv *httptest.Server
	mux := http.NewServeMux()
	js := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		js(w, map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		js(w, map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		mcpRequests.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()

	spec := decl.Server{URL: srv.URL + "/mcp", Auth: &decl.Auth{Type: "authorization_code", ClientID: "pre"}, Retry: decl.Retry{Attempts: 3, Backoff: time.Minute}}
	if err := spec.Validate("mcp_servers.crm"); err != nil {
		t.Fatal(err)
	}
	cfg, err := ConfigOf("crm", spec)
	if err != nil {
		t.Fatal(err)
	}
	c := newPoolCap(t, newPool(t), "", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 3 {
		_, err := c.Tools(ctx)
		if err == nil || !strings.Contains(err.Error(), "needs login: run agentpool login crm") {
			t.Fatalf("Tools #%d = %v, want the reason: needs login: run agentpool login crm", i, err)
		}
		if i > 0 && !errors.Is(err, ErrDegraded) {
			t.Errorf("Tools #%d = %v, want ErrDegraded", i, err)
		}
	}
	if n := mcpRequests.Load(); n != 1 {
		t.Errorf("the server was asked %d times, want once", n)
	}
}
