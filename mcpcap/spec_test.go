package mcpcap

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/google/go-cmp/cmp"
)

// problemKeys returns the Key of every problem in err, in order.
func problemKeys(t *testing.T, err error) []string {
	t.Helper()
	var keys []string
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var k interface{ Key() string }
		if !errors.As(err, &k) {
			t.Errorf("problem %q has no key", err)
			return
		}
		if !strings.HasPrefix(err.Error(), k.Key()+": ") {
			t.Errorf("problem %q does not start with its key %q", err, k.Key())
		}
		keys = append(keys, k.Key())
	}
	if err != nil {
		walk(err)
	}
	return keys
}

// The auth key reaches connpool as declared: the redirect port gives a loopback redirect URL.
func TestConfigOfAuth(t *testing.T) {
	s := decl.Server{URL: "https://h/mcp", Auth: &decl.Auth{Type: "authorization_code", ClientID: "id", ClientSecret: "sec",
		Scopes: []string{"a", "b"}, RedirectPort: 8123, ClientMetadataURL: "https://c.example/client.json"}}
	if err := s.Validate("s"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%v %+v %#v", s, s, s); strings.Contains(got, "sec") {
		t.Errorf("a decl.Server prints its client secret: %s", got)
	}
	cfg, err := ConfigOf("s", s)
	if err != nil {
		t.Fatal(err)
	}
	want := &decl.Auth{Type: connpool.GrantAuthorizationCode, ClientID: "id", ClientSecret: "sec", Scopes: []string{"a", "b"},
		RedirectPort: 8123, ClientMetadataURL: "https://c.example/client.json"}
	if diff := cmp.Diff(want, cfg.Server.Auth); diff != "" {
		t.Errorf("auth (-want +got):\n%s", diff)
	}
	if got := cfg.Server.Auth.RedirectURL(); got != "http://127.0.0.1:8123/callback" {
		t.Errorf("redirect URL = %q", got)
	}
	s = decl.Server{URL: "https://h/mcp", Auth: &decl.Auth{Type: "client_credentials", ClientID: "id", TokenEndpointAuth: "private_key_jwt", PrivateKeyFile: "/k.pem"}}
	cfg, _ = ConfigOf("s", s)
	want = &decl.Auth{Type: connpool.GrantClientCredentials, ClientID: "id", TokenEndpointAuth: connpool.AuthPrivateKeyJWT, PrivateKeyFile: "/k.pem"}
	if diff := cmp.Diff(want, cfg.Server.Auth); diff != "" {
		t.Errorf("auth (-want +got):\n%s", diff)
	}
}

func TestServersValidate(t *testing.T) {
	ss := Servers{"b": {URL: "http://h/mcp"}, "a/x": {Command: "x"}, "c": {}}
	err := ss.Validate("mcp_servers")
	if diff := cmp.Diff([]string{"mcp_servers.a/x", "mcp_servers.c"}, problemKeys(t, err)); diff != "" {
		t.Errorf("problem keys (-want +got):\n%s", diff)
	}
	if ss["a/x"].Type != connpool.TypeStdio || ss["b"].Type != connpool.TypeStreamableHTTP {
		t.Errorf("implied types not filled in: %+v", ss)
	}
	if !strings.Contains(err.Error(), "mcp_servers.a/x: server name") {
		t.Errorf("err = %v", err)
	}
}

func TestCheckCommands(t *testing.T) {
	ss := Servers{"a": {Command: realNode(t)}, "b": {Command: "sh"}, "c": {URL: "http://h"}}
	if err := ss.CheckCommands("mcp_servers", nil); err != nil {
		t.Fatalf("no allowlist: %v", err)
	}
	err := ss.CheckCommands("mcp_servers", []string{"node"})
	if diff := cmp.Diff([]string{"mcp_servers.b.command"}, problemKeys(t, err)); diff != "" {
		t.Errorf("problem keys (-want +got):\n%s", diff)
	}
}

func TestConfigOf(t *testing.T) {
	raw := ""
	spec := decl.Server{
		Type: "stdio", Command: "x", Args: []string{"a"}, Env: map[string]string{"K": "v"}, Cwd: "/w",
		Lazy: true, Tools: []decl.StaticTool{{Name: "ping", Description: "Ping", ReadOnly: true}},
		Scope: ScopeSession, Prefix: &raw, AllowTools: []string{"p*"}, DenyTools: []string{"q"},
		Timeout: time.Second, StartupTimeout: 2 * time.Minute, Retry: decl.Retry{Attempts: 2, Backoff: time.Millisecond, Calls: CallsNever},
	}
	cfg, err := ConfigOf("srv", spec)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Prefix == nil || *cfg.Prefix != "" || cfg.Prefix == spec.Prefix {
		t.Errorf("prefix = %v, want a copy of \"\"", cfg.Prefix)
	}
	cfg.Prefix = nil
	want := Config{
		Name: "srv",
		// The declaration itself, whole, for the pool.
		Server: connpool.ServerConfig{Name: "srv", Server: spec},
		Lazy:   true,
		Scope:  ScopeSession, AllowTools: []string{"p*"}, DenyTools: []string{"q"},
		Timeout: time.Second, Retry: decl.Retry{Attempts: 2, Backoff: time.Millisecond, Calls: CallsNever},
	}
	tools := cfg.Tools
	cfg.Tools = nil
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if len(tools) != 1 || tools[0].Name != "ping" || string(tools[0].InputSchema) != `{"type":"object"}` ||
		tools[0].Annotations == nil || !tools[0].Annotations.ReadOnlyHint {
		t.Errorf("tools = %+v", tools)
	}
	spec.Prefix = nil
	if cfg, _ := ConfigOf("srv", spec); cfg.Prefix != nil {
		t.Errorf("no prefix key must leave Prefix nil, got %q", *cfg.Prefix)
	}
}

// TestStartupTimeoutDefault: a pooled Cap's startup timeout is connpool's default (30 s, room
// for a first npx download) unless the config sets one; it is separate from the call timeout.
func TestStartupTimeoutDefault(t *testing.T) {
	p := connpool.New(nil)
	defer p.Close(context.Background())
	for _, tc := range []struct {
		set, want time.Duration
	}{{0, DefaultStartupTimeout}, {5 * time.Second, 5 * time.Second}} {
		c, err := New(Config{Name: "s", Server: connpool.ServerConfig{Server: decl.Server{Command: "x", StartupTimeout: tc.set}}, Timeout: time.Second}, WithPool(p, ""))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Config().Server.StartupTimeout; got != tc.want {
			t.Errorf("startup timeout %v gives %v, want %v", tc.set, got, tc.want)
		}
		if got := c.Config().Timeout; got != time.Second {
			t.Errorf("call timeout = %v", got)
		}
	}
	if DefaultStartupTimeout != 30*time.Second {
		t.Errorf("DefaultStartupTimeout = %v", DefaultStartupTimeout)
	}
}

// A server name holding the namespace separator "__", or ending with "_", would make its tools'
// names ambiguous ("a__b__t", "a___t"): it is refused, naming the key. A single "_" inside a
// name is fine.
func TestServerNameWithToolSep(t *testing.T) {
	ss := Servers{"a__b": {Command: "x"}, "c_": {Command: "x"}, "my_server": {Command: "x"}, "__": {Command: "x"}}
	err := ss.Validate("mcp_servers")
	if diff := cmp.Diff([]string{"mcp_servers.__", "mcp_servers.a__b", "mcp_servers.c_"}, problemKeys(t, err)); diff != "" {
		t.Errorf("problem keys (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), `must not hold "__"`) {
		t.Errorf("err = %v", err)
	}
}
