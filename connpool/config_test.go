package connpool

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

func TestFingerprint(t *testing.T) {
	base := ServerConfig{Name: "a", Server: decl.Server{Command: "srv", Args: []string{"x", "y"}, Env: map[string]string{"A": "1", "B": "2"}}}
	same := ServerConfig{Name: "b", Server: decl.Server{Type: "stdio", Command: "srv", Args: []string{"x", "y"}, Env: map[string]string{"B": "2", "A": "1"}, StartupTimeout: 5}}
	if base.Fingerprint() != same.Fingerprint() {
		t.Fatal("Name, StartTimeout, explicit default type or map order changed the fingerprint")
	}
	for name, other := range map[string]ServerConfig{
		"args order": {Server: decl.Server{Command: "srv", Args: []string{"y", "x"}, Env: base.Env}},
		"env value":  {Server: decl.Server{Command: "srv", Args: base.Args, Env: map[string]string{"A": "1", "B": "3"}}},
		"cwd":        {Server: decl.Server{Command: "srv", Args: base.Args, Env: base.Env, Cwd: "/tmp"}},
		"arg split":  {Server: decl.Server{Command: "srv", Args: []string{"xy"}, Env: base.Env}},
		"command":    {Server: decl.Server{Command: "srv2", Args: base.Args, Env: base.Env}},
	} {
		if other.Fingerprint() == base.Fingerprint() {
			t.Errorf("%s: fingerprint unchanged", name)
		}
	}
	h1 := ServerConfig{Server: decl.Server{URL: "http://h/mcp", Headers: map[string]string{"A": "1"}}}
	h2 := ServerConfig{Server: decl.Server{URL: "http://h/mcp", Headers: map[string]string{"A": "2"}}}
	sse := ServerConfig{Server: decl.Server{Type: TypeSSE, URL: "http://h/mcp", Headers: map[string]string{"A": "1"}}}
	if h1.Fingerprint() == h2.Fingerprint() || h1.Fingerprint() == sse.Fingerprint() {
		t.Error("headers or type not in the fingerprint")
	}
}

func TestValidate(t *testing.T) {
	ok := []ServerConfig{
		{Server: decl.Server{Command: "srv"}},
		{Server: decl.Server{Type: TypeStreamableHTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}},
		{Server: decl.Server{URL: "http://127.0.0.1:1/mcp"}},
		{Server: decl.Server{Type: TypeSSE, URL: "http://127.0.0.1:1/sse"}},
	}
	for _, c := range ok {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	bad := map[string]struct {
		cfg  ServerConfig
		want string
	}{
		"empty":         {ServerConfig{Name: "e"}, "needs a command"},
		"unknown type":  {ServerConfig{Name: "u", Server: decl.Server{Type: "websocket", URL: "http://h"}}, `unknown type "websocket"`},
		"http no url":   {ServerConfig{Name: "h", Server: decl.Server{Type: TypeStreamableHTTP}}, "needs a url"},
		"both":          {ServerConfig{Name: "b", Server: decl.Server{Command: "x", URL: "http://h"}}, "both command"},
		"bad scheme":    {ServerConfig{Name: "f", Server: decl.Server{URL: "file:///etc/passwd"}}, "want http"},
		"no host":       {ServerConfig{Name: "n", Server: decl.Server{URL: "http:///x"}}, "want http"},
		"nul command":   {ServerConfig{Name: "z", Server: decl.Server{Command: "a\x00b"}}, "NUL"},
		"nul arg":       {ServerConfig{Name: "z", Server: decl.Server{Command: "a", Args: []string{"\x00"}}}, "NUL"},
		"env name":      {ServerConfig{Name: "v", Server: decl.Server{Command: "a", Env: map[string]string{"A=B": "1"}}}, "invalid env"},
		"header inject": {ServerConfig{Name: "i", Server: decl.Server{URL: "http://h", Headers: map[string]string{"X": "a\r\nB: c"}}}, "invalid header"},
		"stdio headers": {ServerConfig{Name: "s", Server: decl.Server{Command: "a", Headers: map[string]string{"X": "1"}}}, "only valid for HTTP"},
		"http args":     {ServerConfig{Name: "a", Server: decl.Server{URL: "http://h", Args: []string{"x"}}}, "only valid for stdio"},
		"neg timeout":   {ServerConfig{Name: "t", Server: decl.Server{Command: "a", StartupTimeout: -1}}, "negative"},
	}
	for name, tc := range bad {
		err := tc.cfg.Validate()
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"`+tc.cfg.Name+`"`) {
			t.Errorf("%s: %v, want ErrInvalidConfig naming the server and %q", name, err, tc.want)
		}
	}
}

// FuzzServerConfig checks that Validate and Fingerprint never panic, that the
// fingerprint ignores Name, and that a valid config names a real transport.
func FuzzServerConfig(f *testing.F) {
	f.Add("", "srv", "a", "K", "v", "", "")
	f.Add("sse", "", "", "", "", "http://127.0.0.1:1/sse", "X-Token")
	f.Add("streamable-http", "x", "", "", "", "https://h/mcp", "bad\r\nheader")
	f.Add("websocket", "", "\x00", "A=B", "", "file:///x", "")
	f.Add("", "", "", "", "", "http://[::1", ":")
	f.Fuzz(func(t *testing.T, typ, cmd, arg, envK, envV, url, hdr string) {
		c := ServerConfig{Name: "fz", Server: decl.Server{Type: typ, Command: cmd, Args: []string{arg}, URL: url}}
		if envK != "" {
			c.Env = map[string]string{envK: envV}
		}
		if hdr != "" {
			c.Headers = map[string]string{hdr: envV}
		}
		err := c.Validate()
		fp := c.Fingerprint()
		c.Name = "other"
		if c.Fingerprint() != fp || len(fp) != 32 {
			t.Fatalf("fingerprint %q depends on Name or has the wrong length", fp)
		}
		if err == nil {
			switch c.transportType() {
			case TypeStdio, TypeStreamableHTTP, TypeSSE:
			default:
				t.Fatalf("valid config with type %q", c.transportType())
			}
		} else if !errors.Is(err, ErrInvalidConfig) {
			t.Fatalf("error %v does not wrap ErrInvalidConfig", err)
		}
	})
}
