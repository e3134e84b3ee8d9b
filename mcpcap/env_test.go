package mcpcap

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
)

// TestServerEnvEverything: a stdio server does not see a variable of agentpool's environment
// that the config does not pass, and sees it once env_passthrough names it (server-everything's
// get-env prints the server's whole environment).
func TestServerEnvEverything(t *testing.T) {
	bin := everythingBin(t)
	t.Setenv("AGENTPOOL_TEST_SECRET", "s3cret")
	p := newPool(t)
	for _, tc := range []struct {
		name string
		pass []string
		want bool
	}{{"default", nil, false}, {"passthrough", []string{"AGENTPOOL_TEST_SECRET"}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			spec := decl.Server{Command: bin, Args: []string{"stdio"}, Env: map[string]string{"OWN": "mine"}, EnvPassthrough: tc.pass}
			if err := spec.Validate("mcp_servers.everything"); err != nil {
				t.Fatal(err)
			}
			cfg, err := ConfigOf("everything", spec)
			if err != nil {
				t.Fatal(err)
			}
			c := newPoolCap(t, p, "", cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := c.CallTool(ctx, &ext.ToolCall{Name: "get-env"})
			if err != nil || res.IsError || len(res.Content) == 0 {
				t.Fatalf("get-env = %+v, %v", res, err)
			}
			var env map[string]string
			if err := json.Unmarshal([]byte(res.Content[0].Text), &env); err != nil {
				t.Fatalf("get-env output: %v", err)
			}
			if got, ok := env["AGENTPOOL_TEST_SECRET"]; ok != tc.want || (ok && got != "s3cret") {
				t.Errorf("server sees AGENTPOOL_TEST_SECRET = %q (set: %v), want set: %v", got, ok, tc.want)
			}
			if env["OWN"] != "mine" || env["PATH"] == "" {
				t.Errorf("server's OWN = %q, PATH = %q: the config's env and PATH must reach it", env["OWN"], env["PATH"])
			}
		})
	}
}

func TestEnvPassthroughValidated(t *testing.T) {
	for _, tc := range []struct {
		spec decl.Server
		key  string
	}{
		{decl.Server{URL: "http://h/mcp", EnvPassthrough: []string{"A"}}, "mcp_servers.s.env_passthrough"},
		{decl.Server{Command: "x", EnvPassthrough: []string{"A=B"}}, "mcp_servers.s.env_passthrough[0]"},
		{decl.Server{Command: "x", EnvPassthrough: []string{""}}, "mcp_servers.s.env_passthrough[0]"},
	} {
		err := tc.spec.Validate("mcp_servers.s")
		keys := problemKeys(t, err)
		if len(keys) != 1 || keys[0] != tc.key {
			t.Errorf("%+v: problems %v (%v), want one at %s", tc.spec.EnvPassthrough, keys, err, tc.key)
		}
	}
}
