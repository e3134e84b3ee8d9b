package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/oauthtest"
)

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestLogin: `agentpool login SERVER` prints the authorization URL, takes the redirect on the
// server's loopback port, and keeps the token in a 0600 file under $XDG_CONFIG_HOME; the
// next command uses the token without asking the user again, and no token is printed. A
// server not in the config, and one without auth: authorization_code, are clear errors.
func TestLogin(t *testing.T) {
	t.Parallel()
	f := oauthtest.New(t, time.Hour)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, fmt.Sprintf(`mcp_servers:
  crm:
    url: %s/mcp
    auth: {type: authorization_code, client_id: %s, client_secret: %s, redirect_port: %d}
`, f.URL, oauthtest.ClientID, oauthtest.Secret, freePort(t)))
	env := append(pluginEnv(dir), "BROWSER=", "DISPLAY=", "WAYLAND_DISPLAY=")

	cmd := exec.Command("agentpool", "--config", cfg, "login", "crm")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var said []string
	authURL := ""
	for authURL == "" && sc.Scan() {
		said = append(said, sc.Text())
		if strings.HasPrefix(sc.Text(), "http") {
			authURL = sc.Text()
		}
	}
	if authURL == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("login printed no authorization URL:\n%s", strings.Join(said, "\n"))
	}
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(stderr); rest <- string(b) }()
	// The user's browser: the authorization server redirects to agentpool's loopback address.
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "logged in") {
		t.Errorf("the redirect page says %q", page)
	}
	waitExit(t, cmd, "login")
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("login exited %d: %s", code, <-rest)
	}
	printed := strings.Join(said, "\n") + <-rest + stdout.String()
	f.NoSecretIn(t, "login's output", printed)

	tokens := filepath.Join(dir, "xdg", "agentpool", "tokens")
	files, err := os.ReadDir(tokens)
	if err != nil || len(files) != 1 {
		t.Fatalf("token files %v, %v: want one", files, err)
	}
	if info, err := files[0].Info(); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, %v: want 0600", info.Mode().Perm(), err)
	}

	// The next command finds the token: the tools are listed, nobody is asked again.
	out := runPlugins(t, env, "--config", cfg, "--no-default-roots", "tools", "list")
	if !strings.Contains(out, "crm__echo") {
		t.Errorf("tools list after login:\n%s", out)
	}
	f.NoSecretIn(t, "tools list", out)
	if n := f.Stats().Authorizes; n != 1 {
		t.Errorf("%d authorizations, want the login's alone", n)
	}

	plain := filepath.Join(dir, "plain.yaml")
	writeFile(t, plain, "mcp_servers:\n  plain: {url: "+f.URL+"/mcp}\n")
	for _, tc := range []struct{ server, want string }{
		{"nosuch", `no server "nosuch"`},
		{"plain", "needs no login"},
	} {
		c := exec.Command("agentpool", "--config", plain, "login", tc.server)
		c.Env = env
		out, err := c.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("login %s: %v %s; want an error saying %s", tc.server, err, out, tc.want)
		}
	}
}
