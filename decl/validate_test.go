package decl

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

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

func TestServerValidate(t *testing.T) {
	cases := []struct {
		name string
		spec Server
		want []string // keys of the problems, in order
	}{
		{"stdio", Server{Command: "x"}, nil},
		{"http", Server{URL: "https://h/mcp", Headers: map[string]string{"A": "b"}}, nil},
		{"nothing", Server{}, []string{"s"}},
		{"unknown type", Server{Type: "ftp", Command: "x"}, []string{"s.type"}},
		{"stdio with url and headers", Server{Type: "stdio", Command: "x", URL: "http://h", Headers: map[string]string{"A": "b"}},
			[]string{"s.url", "s.headers"}},
		{"http with stdio keys", Server{Type: "sse", URL: "http://h", Command: "x", Args: []string{"a"}, Env: map[string]string{"A": "b"}, Cwd: "/"},
			[]string{"s.command", "s.args", "s.env", "s.cwd"}},
		{"bad url", Server{URL: "file:///etc/passwd"}, []string{"s.url"}},
		{"scope", Server{Command: "x", Scope: "turn"}, []string{"s.scope"}},
		{"retry", Server{Command: "x", Retry: Retry{Attempts: MaxAttempts + 1, Backoff: -time.Second, Calls: "sometimes"}, Timeout: -1, StartupTimeout: -1},
			[]string{"s.retry.calls", "s.retry.attempts", "s.retry.backoff", "s.timeout", "s.startup_timeout"}},
		// Without static tools a lazy server lists what it listed in an earlier run.
		{"lazy without tools", Server{Command: "x", Lazy: true}, nil},
		{"tools", Server{Command: "x", Tools: []StaticTool{{Name: "a"}, {}}}, []string{"s.tools[1]"}},
		{"schema", Server{Command: "x", Tools: []StaticTool{{Name: "a", InputSchema: map[string]any{"f": func() {}}}}},
			[]string{"s.tools[0].input_schema"}},
		{"env name", Server{Command: "x", Env: map[string]string{"A=B": "c"}}, []string{"s"}},
		{"auth cc", Server{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", ClientSecret: "b"}}, nil},
		{"auth code", Server{URL: "https://h/mcp", Auth: &Auth{Type: "authorization_code", RedirectPort: 8080, Scopes: []string{"read"}}}, nil},
		{"auth jwt", Server{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", TokenEndpointAuth: "private_key_jwt", PrivateKeyFile: "/k.pem"}}, nil},
		{"auth on stdio", Server{Command: "x", Auth: &Auth{Type: "authorization_code"}}, []string{"s.auth"}},
		{"auth type", Server{URL: "https://h/mcp", Auth: &Auth{Type: "password"}}, []string{"s.auth.type"}},
		{"auth no type", Server{URL: "https://h/mcp", Auth: &Auth{}}, []string{"s.auth.type"}},
		{"auth cc incomplete", Server{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", TokenEndpointAuth: "tls", RedirectPort: 1, ClientMetadataURL: "https://c/x.json"}},
			[]string{"s.auth.token_endpoint_auth", "s.auth.client_id", "s.auth.client_secret", "s.auth.redirect_port", "s.auth.client_metadata_url"}},
		{"auth jwt no key", Server{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", TokenEndpointAuth: "private_key_jwt"}}, []string{"s.auth.private_key_file"}},
		{"auth key without jwt", Server{URL: "https://h/mcp", Auth: &Auth{Type: "client_credentials", ClientID: "a", ClientSecret: "b", PrivateKeyFile: "/k"}}, []string{"s.auth.private_key_file"}},
		{"auth code bad", Server{URL: "https://h/mcp", Auth: &Auth{Type: "authorization_code", RedirectPort: 70000, ClientMetadataURL: "http://c/x.json", ClientSecret: "s"}},
			[]string{"s.auth.client_secret", "s.auth.redirect_port", "s.auth.client_metadata_url"}},
		{"auth and authorization header", Server{URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer x"}, Auth: &Auth{Type: "authorization_code"}},
			[]string{"s.headers"}},
		{"sandbox", Server{Command: "x", Sandbox: &Sandbox{Read: []string{"~/p", ""}, Network: Network{Mode: NetworkList, Allow: []string{"h:1", "h"}}, Profile: "ruby"}},
			[]string{"s.sandbox.read[1]", "s.sandbox.network[1]", "s.sandbox.profile"}},
		{"sandbox on http", Server{URL: "https://h/mcp", Sandbox: &Sandbox{Off: true}}, []string{"s.sandbox"}},
		{"patterns", Server{Command: "x", AllowTools: []string{"ok*", "[bad"}, DenyTools: []string{"ok*", "\\"}},
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

// A URL can carry a secret (a password in its user info, a token in its query, often from
// ${VAR}): a problem with the server's URL or headers never prints the URL.
func TestServerValidateKeepsURLSecrets(t *testing.T) {
	for name, spec := range map[string]Server{
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

// What only the pool checks is said under the server's key, without connpool's own prefix.
func TestServerValidatePoolChecksWithoutPrefix(t *testing.T) {
	s := Server{URL: "http://h/mcp", Headers: map[string]string{"bad name": "x"}}
	err := s.Validate("mcp_servers.a")
	if err == nil || err.Error() != `mcp_servers.a: invalid header "bad name"` {
		t.Errorf("err = %v", err)
	}
}

// A sandbox reads from JSON as from YAML: an object, or "off"; network a word or a list.
func TestSandboxJSON(t *testing.T) {
	var s Server
	if err := json.Unmarshal([]byte(`{"command":"x","sandbox":{"read":["/a"],"network":["h:80"]}}`), &s); err != nil {
		t.Fatal(err)
	}
	want := &Sandbox{Read: []string{"/a"}, Network: Network{Mode: NetworkList, Allow: []string{"h:80"}}}
	if diff := cmp.Diff(want, s.Sandbox); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(s.Sandbox)
	var back Sandbox
	if err := json.Unmarshal(b, &back); err != nil || !cmp.Equal(*want, back) {
		t.Errorf("round trip of %s = %+v, %v", b, back, err)
	}
	if err := json.Unmarshal([]byte(`"off"`), &back); err != nil || !back.Off {
		t.Errorf(`"off" = %+v, %v`, back, err)
	}
	if json.Unmarshal([]byte(`"on"`), &back) == nil {
		t.Error(`"on" accepted`)
	}
}

// A header the HTTP transport or the MCP transport sets itself (framing, hop-by-hop, the
// session's, the media types the SDK sends and accepts, the resumption point, the content
// coding net/http asks for and decodes) cannot be configured: net/http would drop some
// silently and send others beside its own, and connpool sets a configured header over the
// SDK's. The error names it, in any case.
func TestServerValidateRefusesTransportHeaders(t *testing.T) {
	for _, name := range []string{"Host", "content-length", "Transfer-Encoding", "connection", "Keep-Alive",
		"Upgrade", "TE", "Trailer", "Proxy-Connection", "mcp-session-id", "Mcp-Protocol-Version",
		"Accept", "content-type", "Last-Event-ID", "Accept-Encoding"} {
		s := Server{URL: "http://h/mcp", Headers: map[string]string{name: "x", "X-Token": "t"}}
		err := s.Validate("mcp_servers.a")
		if err == nil || !strings.Contains(err.Error(), "mcp_servers.a.headers") || !strings.Contains(err.Error(), name) {
			t.Errorf("headers %q: %v, want an error under mcp_servers.a.headers naming it", name, err)
		}
	}
	ok := Server{URL: "http://h/mcp", Headers: map[string]string{"X-Token": "t", "User-Agent": "me", "Accept-Language": "fr"}}
	if err := ok.Validate("mcp_servers.a"); err != nil {
		t.Errorf("ordinary headers: %v", err)
	}
}

// Header names differing only in case name one header: the value sent would be whichever the
// map gave last. The error names both, never a value.
func TestServerValidateRefusesHeadersOfOneName(t *testing.T) {
	s := Server{URL: "http://h/mcp", Headers: map[string]string{"X-Token": "secret-a", "x-token": "secret-b", "X-Other": "o"}}
	err := s.Validate("mcp_servers.a")
	if err == nil || !strings.Contains(err.Error(), "mcp_servers.a.headers") ||
		!strings.Contains(err.Error(), "X-Token") || !strings.Contains(err.Error(), "x-token") {
		t.Fatalf("X-Token and x-token: %v, want an error under mcp_servers.a.headers naming both", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows a value: %v", err)
	}
	if strings.Contains(err.Error(), "X-Other") {
		t.Errorf("the error names a header set once: %v", err)
	}
}
