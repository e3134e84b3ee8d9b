package mcpcap

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
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

func TestServerSpecValidate(t *testing.T) {
	cases := []struct {
		name string
		spec ServerSpec
		want []string // keys of the problems, in order
	}{
		{"stdio", ServerSpec{Command: "x"}, nil},
		{"http", ServerSpec{URL: "https://h/mcp", Headers: map[string]string{"A": "b"}}, nil},
		{"nothing", ServerSpec{}, []string{"s"}},
		{"unknown type", ServerSpec{Type: "ftp", Command: "x"}, []string{"s.type"}},
		{"stdio with url and headers", ServerSpec{Type: "stdio", Command: "x", URL: "http://h", Headers: map[string]string{"A": "b"}},
			[]string{"s.url", "s.headers"}},
		{"http with stdio keys", ServerSpec{Type: "sse", URL: "http://h", Command: "x", Args: []string{"a"}, Env: map[string]string{"A": "b"}, Cwd: "/"},
			[]string{"s.command", "s.args", "s.env", "s.cwd"}},
		{"bad url", ServerSpec{URL: "file:///etc/passwd"}, []string{"s.url"}},
		{"scope", ServerSpec{Command: "x", Scope: "turn"}, []string{"s.scope"}},
		{"retry", ServerSpec{Command: "x", Retry: Retry{Attempts: MaxAttempts + 1, Backoff: -time.Second, Calls: "sometimes"}, Timeout: -1, StartupTimeout: -1},
			[]string{"s.retry.calls", "s.retry.attempts", "s.retry.backoff", "s.timeout", "s.startup_timeout"}},
		{"lazy", ServerSpec{Command: "x", Lazy: true}, []string{"s.lazy"}},
		{"tools", ServerSpec{Command: "x", Tools: []StaticTool{{Name: "a"}, {}}}, []string{"s.tools[1]"}},
		{"schema", ServerSpec{Command: "x", Tools: []StaticTool{{Name: "a", InputSchema: map[string]any{"f": func() {}}}}},
			[]string{"s.tools[0].input_schema"}},
		{"env name", ServerSpec{Command: "x", Env: map[string]string{"A=B": "c"}}, []string{"s"}},
		{"auth cc", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", ClientSecret: "b"}}, nil},
		{"auth code", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "authorization_code", RedirectPort: 8080, Scopes: []string{"read"}}}, nil},
		{"auth jwt", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", TokenEndpointAuth: "private_key_jwt", PrivateKeyFile: "/k.pem"}}, nil},
		{"auth on stdio", ServerSpec{Command: "x", Auth: &Auth{Type: "authorization_code"}}, []string{"s.auth"}},
		{"auth type", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "password"}}, []string{"s.auth.type"}},
		{"auth no type", ServerSpec{URL: "https://h/mcp", Auth: &Auth{}}, []string{"s.auth.type"}},
		{"auth cc incomplete", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", TokenEndpointAuth: "tls", RedirectPort: 1, ClientMetadataURL: "https://c/x.json"}},
			[]string{"s.auth.token_endpoint_auth", "s.auth.client_id", "s.auth.client_secret", "s.auth.redirect_port", "s.auth.client_metadata_url"}},
		{"auth jwt no key", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", TokenEndpointAuth: "private_key_jwt"}}, []string{"s.auth.private_key_file"}},
		{"auth key without jwt", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", ClientSecret: "b", PrivateKeyFile: "/k"}}, []string{"s.auth.private_key_file"}},
		{"auth code bad", ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "authorization_code", RedirectPort: 70000, ClientMetadataURL: "http://c/x.json", ClientSecret: "s"}},
			[]string{"s.auth.client_secret", "s.auth.redirect_port", "s.auth.client_metadata_url"}},
		{"auth and authorization header", ServerSpec{URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer x"}, Auth: &Auth{Type: "authorization_code"}},
			[]string{"s.headers"}},
		{"patterns", ServerSpec{Command: "x", AllowTools: []string{"ok*", "[bad"}, DenyTools: []string{"ok*", "\\"}},
			[]string{"s.allow_tools[1]", "s.deny_tools[1]", "s.deny_tools"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate("s")
			if diff := cmp.Diff(tc.want, problemKeys(t, err)); diff != "" {
				t.Errorf("problem keys (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// The auth key becomes connpool's OAuthConfig: the redirect port a loopback redirect URL.
func TestServerSpecConfigAuth(t *testing.T) {
	s := ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "authorization_code", ClientID: "id", ClientSecret: "sec",
		Scopes: []string{"a", "b"}, RedirectPort: 8123, ClientMetadataURL: "https://c.example/client.json"}}
	if err := s.Validate("s"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%v %+v %#v", s, s, s); strings.Contains(got, "sec") {
		t.Errorf("a ServerSpec prints its client secret: %s", got)
	}
	cfg, err := s.Config("s")
	if err != nil {
		t.Fatal(err)
	}
	want := &connpool.OAuthConfig{Grant: connpool.GrantAuthorizationCode, ClientID: "id", ClientSecret: "sec", Scopes: []string{"a", "b"},
		RedirectURL: "http://127.0.0.1:8123/callback", ClientMetadataURL: "https://c.example/client.json"}
	if diff := cmp.Diff(want, cfg.Server.Auth); diff != "" {
		t.Errorf("OAuthConfig (-want +got):\n%s", diff)
	}
	s = ServerSpec{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "id", TokenEndpointAuth: "private_key_jwt", PrivateKeyFile: "/k.pem"}}
	cfg, _ = s.Config("s")
	want = &connpool.OAuthConfig{Grant: connpool.GrantClientCredentials, ClientID: "id", TokenEndpointAuth: connpool.AuthPrivateKeyJWT, PrivateKeyFile: "/k.pem"}
	if diff := cmp.Diff(want, cfg.Server.Auth); diff != "" {
		t.Errorf("OAuthConfig (-want +got):\n%s", diff)
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

func TestServerSpecConfig(t *testing.T) {
	raw := ""
	spec := ServerSpec{
		Type: "stdio", Command: "x", Args: []string{"a"}, Env: map[string]string{"K": "v"}, Cwd: "/w",
		Lazy: true, Tools: []StaticTool{{Name: "ping", Description: "Ping", ReadOnly: true}},
		Scope: ScopeSession, Prefix: &raw, AllowTools: []string{"p*"}, DenyTools: []string{"q"},
		Timeout: time.Second, StartupTimeout: 2 * time.Minute, Retry: Retry{Attempts: 2, Backoff: time.Millisecond, Calls: CallsNever},
	}
	cfg, err := spec.Config("srv")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Prefix == nil || *cfg.Prefix != "" || cfg.Prefix == spec.Prefix {
		t.Errorf("prefix = %v, want a copy of \"\"", cfg.Prefix)
	}
	cfg.Prefix = nil
	want := Config{
		Name: "srv",
		Server: connpool.ServerConfig{Name: "srv", Type: "stdio", Command: "x", Args: []string{"a"},
			Env: map[string]string{"K": "v"}, Cwd: "/w", StartTimeout: 2 * time.Minute},
		Lazy:  true,
		Scope: ScopeSession, AllowTools: []string{"p*"}, DenyTools: []string{"q"},
		Timeout: time.Second, Retry: Retry{Attempts: 2, Backoff: time.Millisecond, Calls: CallsNever},
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
	if cfg, _ := spec.Config("srv"); cfg.Prefix != nil {
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
		c, err := New(Config{Name: "s", Server: connpool.ServerConfig{Command: "x", StartTimeout: tc.set}, Timeout: time.Second}, WithPool(p, ""))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Config().Server.StartTimeout; got != tc.want {
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

// A URL can carry a secret (a password in its user info, a token in its query, often from
// ${VAR}): a problem with the server's URL or headers never prints the URL.
func TestServerSpecValidateKeepsURLSecrets(t *testing.T) {
	for name, spec := range map[string]ServerSpec{
		"bad scheme":  {URL: "htp://user:s3cret@h/mcp?token=s3cret"},
		"unparsable":  {URL: "https://user:s3cret@h/%zz?token=s3cret"},
		"no host":     {URL: "https:///mcp?token=s3cret"},
		"bad header":  {URL: "https://user:s3cret@h/mcp?token=s3cret", Headers: map[string]string{"Bad Name": "s3cret"}},
		"stdio + url": {Type: "stdio", Command: "x", URL: "https://user:s3cret@h/mcp"},
		// A '/' or a '%' in a password written as it is: url.Parse's own message quotes the
		// piece it could not read, which is the password's start or an escape inside it.
		"slash in password":   {URL: "https://user:s3cret/x@h/mcp"},
		"percent in password": {URL: "https://user:s3cret%zz@h/mcp"},
		"bad escape in host":  {URL: "https://[::1%s3cret]/mcp"},
	} {
		t.Run(name, func(t *testing.T) {
			err := spec.Validate("s")
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error prints a secret: %v", err)
			}
		})
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

// What only the pool checks is said under the server's key, without connpool's own prefix.
func TestServerSpecValidatePoolChecksWithoutPrefix(t *testing.T) {
	s := ServerSpec{URL: "http://h/mcp", Headers: map[string]string{"bad name": "x"}}
	err := s.Validate("mcp_servers.a")
	if err == nil || err.Error() != `mcp_servers.a: invalid header "bad name"` {
		t.Errorf("err = %v", err)
	}
}
