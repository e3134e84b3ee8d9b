package connpool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// startedEnv starts cfg's server behind a shell that first writes its environment to a file,
// and returns that environment.
func startedEnv(t *testing.T, cfg ServerConfig) map[string]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "env")
	cfg.Command = "sh"
	cfg.Args = []string{"-c", `env > "$0"; exec "$1"`, out, faultBinary(t)}
	p := newTestPool(t, nil)
	c := mustGet(t, p, cfg, GlobalPartition)
	p.Release(c)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

// A stdio server gets the minimal inherited set, the config's env (which wins) and what
// EnvPassthrough names; nothing else of this process's environment.
func TestServerEnvIsMinimal(t *testing.T) {
	t.Setenv("AGENTPOOL_TEST_SECRET", "s3cret")
	t.Setenv("AGENTPOOL_TEST_OTHER", "other")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("TZ", "UTC")
	t.Setenv("SHELL", "() { :; }; echo function-like") // skipped, as the reference clients do

	env := startedEnv(t, ServerConfig{Name: "env", Server: decl.Server{Env: map[string]string{"TZ": "Europe/Paris", "OWN": "mine"}}})
	for k, want := range map[string]string{"LANG": "C.UTF-8", "TZ": "Europe/Paris", "OWN": "mine", "PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME")} {
		if env[k] != want {
			t.Errorf("server's %s = %q, want %q", k, env[k], want)
		}
	}
	for _, k := range []string{"AGENTPOOL_TEST_SECRET", "AGENTPOOL_TEST_OTHER", "SHELL"} {
		if v, ok := env[k]; ok {
			t.Errorf("server sees %s=%q, which it was not given", k, v)
		}
	}

	env = startedEnv(t, ServerConfig{Name: "env", Server: decl.Server{EnvPassthrough: []string{"AGENTPOOL_TEST_SECRET", "AGENTPOOL_TEST_UNSET"}}})
	if env["AGENTPOOL_TEST_SECRET"] != "s3cret" {
		t.Errorf("passed-through AGENTPOOL_TEST_SECRET = %q, want s3cret", env["AGENTPOOL_TEST_SECRET"])
	}
	if _, ok := env["AGENTPOOL_TEST_UNSET"]; ok {
		t.Errorf("a passed-through variable that is not set appears in the server's env")
	}
	if _, ok := env["AGENTPOOL_TEST_OTHER"]; ok {
		t.Errorf("server sees AGENTPOOL_TEST_OTHER, which was not passed through")
	}
}

// EnvPassthrough is part of what identifies a server: a different list is another process.
func TestEnvPassthroughInFingerprint(t *testing.T) {
	a := ServerConfig{Server: decl.Server{Command: "srv", EnvPassthrough: []string{"A", "B"}}}
	if a.Fingerprint() == (ServerConfig{Server: decl.Server{Command: "srv"}}).Fingerprint() {
		t.Error("EnvPassthrough does not change the fingerprint")
	}
	if a.Fingerprint() != (ServerConfig{Server: decl.Server{Command: "srv", EnvPassthrough: []string{"B", "A"}}}).Fingerprint() {
		t.Error("the order of EnvPassthrough changes the fingerprint")
	}
	for _, bad := range []string{"", "A=B", "A\x00"} {
		if err := (ServerConfig{Server: decl.Server{Command: "srv", EnvPassthrough: []string{bad}}}).Validate(); err == nil {
			t.Errorf("EnvPassthrough %q accepted", bad)
		}
	}
}
