package sandbox

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testserver"
)

// child returns the test binary as a child that does action, with a minimal environment.
func child(t *testing.T, action string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), actionEnv + "=" + action}
	return cmd
}

// run starts cmd, sandboxed by p when p is not nil, and returns its output and whether it
// reported success.
func run(t *testing.T, p *Policy, cmd *exec.Cmd) (string, bool) {
	t.Helper()
	if p != nil {
		l, err := Command(p, cmd)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Cleanup()
	}
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil && ee.ExitCode() != 1 {
		t.Fatalf("%s: exit %d: %s %s", cmd.Args, ee.ExitCode(), out, ee.Stderr)
	}
	return strings.TrimSpace(string(out)), err == nil
}

func listen(t *testing.T) (net.Listener, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, l.Addr().String()
}

func port(t *testing.T, addr string) uint16 {
	_, p, _ := net.SplitHostPort(addr)
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return uint16(n)
}

// A sandboxed child cannot read or write outside its paths, connect to a port it was not
// given, bind a port, signal a process outside its sandbox nor run a shell; the same child
// unsandboxed can do each, and sandboxed it still does what its policy allows.
func TestConfinement(t *testing.T) {
	if s := Probe(); s.LandlockABI < 6 {
		t.Skipf("the kernel's Landlock ABI is %d; these rules need 6", s.LandlockABI)
	}
	allowed, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{allowed, outside} {
		if err := os.WriteFile(filepath.Join(d, "secret"), []byte("s"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, given := listen(t)
	_, other := listen(t)
	fl, free := listen(t)
	fl.Close()
	s := &decl.Sandbox{Read: []string{allowed}, Network: decl.Network{Mode: decl.NetworkList, Allow: []string{given}}}
	policy := func(cmd *exec.Cmd) *Policy { return Resolve("hostile", s, cmd) }

	for _, action := range []string{
		"read:" + filepath.Join(outside, "secret"),
		"write:" + filepath.Join(outside, "new"),
		"connect:" + other,
		"mptcp:" + other,
		"uring-mptcp:" + other,
		"bind:127.0.0.1:0",
		"bind:" + free,
		"signal:" + strconv.Itoa(os.Getpid()),
		"exec:/bin/sh",
	} {
		t.Run(strings.SplitN(action, ":", 2)[0], func(t *testing.T) {
			if out, ok := run(t, nil, child(t, action)); !ok {
				t.Fatalf("unsandboxed %s: %s", action, out)
			}
			cmd := child(t, action)
			if out, ok := run(t, policy(cmd), cmd); ok || !strings.Contains(out, "denied") {
				t.Errorf("sandboxed %s: %s", action, out)
			}
		})
	}
	for _, action := range []string{"read:" + filepath.Join(allowed, "secret"), "tmp", "connect:" + given} {
		cmd := child(t, action)
		if out, ok := run(t, policy(cmd), cmd); !ok {
			t.Errorf("sandboxed %s, which the policy allows: %s", action, out)
		}
	}
}

// A sandboxed child cannot connect to a unix socket by path, even in a folder it may write
// (ssh-agent's, the D-Bus session bus, docker.sock), and the refusal is EACCES; unsandboxed it
// can. socketpair, which pipes and runtimes' own IPC use, still works.
func TestUnixSocket(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	s := &decl.Sandbox{Write: []string{dir}}
	if out, ok := run(t, nil, child(t, "unix:"+sock)); !ok {
		t.Fatalf("unsandboxed connect to %s: %s", sock, out)
	}
	cmd := child(t, "unix:"+sock)
	if out, ok := run(t, Resolve("agent", s, cmd), cmd); ok || !strings.Contains(out, "permission denied") {
		t.Errorf("sandboxed connect to %s: %s, want permission denied", sock, out)
	}
	cmd = child(t, "socketpair")
	if out, ok := run(t, Resolve("agent", s, cmd), cmd); !ok {
		t.Errorf("sandboxed socketpair: %s", out)
	}
}

// network: none leaves the child without a network: not even loopback reaches this
// process's listener.
func TestNetworkNone(t *testing.T) {
	if !Probe().UserNS {
		t.Skip("no unprivileged user namespaces")
	}
	_, addr := listen(t)
	cmd := child(t, "connect:"+addr)
	p := Resolve("offline", &decl.Sandbox{Network: decl.Network{Mode: decl.NetworkNone}}, cmd)
	l, err := Command(p, cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cleanup()
	if !l.NetNS {
		t.Error("Launch.NetNS false for network: none")
	}
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "denied") {
		t.Errorf("connect from network: none: %s", out)
	}
}

// On a kernel without Landlock (simulated), a required sandbox refuses in one line naming the
// server, what is missing and required: false, and leaves the command as it was; not
// required, the command runs with what the kernel has.
func TestWithoutLandlock(t *testing.T) {
	t.Setenv(simulateEnv, "no-landlock")
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := child(t, "read:"+secret)
	path := cmd.Path
	_, err := Command(Resolve("files", &decl.Sandbox{}, cmd), cmd)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	msg := err.Error()
	for _, want := range []string{`"files"`, "Landlock", "required: false"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") || cmd.Path != path {
		t.Errorf("message %q on more than one line, or command rewritten to %s", msg, cmd.Path)
	}

	no := false
	cmd = child(t, "read:"+secret)
	p := Resolve("files", &decl.Sandbox{Required: &no}, cmd)
	l, err := Command(p, cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cleanup()
	if l.ABI != 0 || l.Missing == "" {
		t.Errorf("launch %+v, want ABI 0 and what is missing", l)
	}
	if out, ok := run(t, nil, cmd); !ok {
		t.Errorf("not required, without Landlock: %s", out)
	}
}

// Resolve makes paths absolute (~ the home folder, relative against the cwd), reads the cwd,
// and gives a node server node's binary.
func TestResolve(t *testing.T) {
	home, _ := os.UserHomeDir()
	cwd := t.TempDir()
	cmd := exec.Command("node", "server.js")
	cmd.Dir = cwd
	p := Resolve("n", &decl.Sandbox{Read: []string{"~/projects", "data"}, Write: []string{"~"}}, cmd)
	for _, want := range []string{filepath.Join(home, "projects"), filepath.Join(cwd, "data"), cwd} {
		if !contains(p.Read, want) {
			t.Errorf("read %v lacks %s", p.Read, want)
		}
	}
	if !contains(p.Write, home) {
		t.Errorf("write %v lacks %s", p.Write, home)
	}
	if node, err := exec.LookPath("node"); err == nil && !contains(p.Exec, node) {
		t.Errorf("exec %v lacks node at %s", p.Exec, node)
	}
	if !p.Required || p.Network != "" {
		t.Errorf("required %v, network %q: want required, all", p.Required, p.Network)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// A node server started by its bin (a #! script) works sandboxed with nothing given: the node
// profile reads its package and runs node, and it answers initialize.
func TestNodeServer(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	bin := testserver.NPMBin(t, "mcp-server-everything")
	cmd := exec.Command(bin, "stdio")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	l, err := Command(Resolve("everything", &decl.Sandbox{}, cmd), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cleanup()
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	if !strings.Contains(string(out), `"serverInfo"`) {
		t.Fatalf("no initialize answer: %s\nstderr: %s", out, stderr.String())
	}
}

// A runtime's install prefix (its binary's folder's parent) is granted only when it is not
// the root nor the home folder or one of its folders' parents: node in ~/bin, or started as
// /bin/node, does not give the server ~/.ssh.
func TestRuntimePrefixNotHome(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	secret := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(home, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "node")); err != nil {
		t.Fatal(err)
	}
	node := &decl.Sandbox{Profile: decl.ProfileNode}

	t.Run("home", func(t *testing.T) {
		cmd := child(t, "read:"+secret)
		cmd.Env = append(cmd.Env, "PATH="+bin+":"+os.Getenv("PATH"))
		if out, ok := run(t, Resolve("n", node, cmd), cmd); ok {
			t.Errorf("node in %s: the server read %s: %s", bin, secret, out)
		}
	})
	t.Run("root", func(t *testing.T) {
		if _, err := os.Stat("/bin/node"); err != nil {
			t.Skip("no /bin/node")
		}
		cmd := exec.Command("/bin/node", "-e", "require('fs').readFileSync(process.argv[1]); console.log('ok')", secret)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		l, err := Command(Resolve("n", node, cmd), cmd)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Cleanup()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if out, err := cmd.Output(); err == nil || !strings.Contains(stderr.String(), "EACCES") {
			t.Errorf("/bin/node reading %s: err %v, %s %s", secret, err, out, stderr.String())
		}
	})
}

// The code a runtime runs is granted up to its package, never the home folder: a script in a
// folder of the home folder without a package of its own, below a stray ~/package.json, does
// not give the server ~/.ssh.
func TestCodeRootNotHome(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	secret := filepath.Join(home, ".ssh", "id_rsa")
	script := filepath.Join(home, "tools", "srv", "server.js")
	for _, f := range []string{secret, script, filepath.Join(home, "package.json")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := child(t, "read:"+secret)
	cmd.Args = append(cmd.Args, script)
	p := Resolve("n", &decl.Sandbox{Profile: decl.ProfileNode}, cmd)
	if !contains(p.Read, filepath.Dir(script)) {
		t.Errorf("read %v lacks the script's folder %s", p.Read, filepath.Dir(script))
	}
	if out, ok := run(t, p, cmd); ok {
		t.Errorf("a script in %s: the server read %s: %s", filepath.Dir(script), secret, out)
	}
}

// A runtime installed under ~/.local (node or python3 in ~/.local/bin) is granted its binary
// and the folders that runtime uses there (node's ~/.local/lib/node_modules, python's
// ~/.local/lib/pythonX.Y), not all of ~/.local: a file in ~/.local/share/other or
// ~/.local/lib/other stays unreadable.
func TestRuntimeInDotLocal(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	local := filepath.Join(home, ".local")
	secrets := []string{filepath.Join(local, "share", "other", "secret"), filepath.Join(local, "lib", "other", "secret")}
	site := filepath.Join(local, "lib", "python3.12", "site-packages", "mod.py")
	for _, f := range append([]string{site}, secrets...) {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("s"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(local, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"node", "python3"} {
		if err := os.Symlink(self, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, profile := range []string{decl.ProfileNode, decl.ProfilePython} {
		for _, secret := range secrets {
			cmd := child(t, "read:"+secret)
			cmd.Env = append(cmd.Env, "PATH="+bin+":"+os.Getenv("PATH"))
			if out, ok := run(t, Resolve("n", &decl.Sandbox{Profile: profile}, cmd), cmd); ok {
				t.Errorf("%s in %s: the server read %s: %s", profile, bin, secret, out)
			}
		}
	}
	cmd := child(t, "read:"+site)
	cmd.Env = append(cmd.Env, "PATH="+bin+":"+os.Getenv("PATH"))
	if out, ok := run(t, Resolve("n", &decl.Sandbox{Profile: decl.ProfilePython}, cmd), cmd); !ok {
		t.Errorf("python in %s: the server could not read its user site-packages %s: %s", bin, site, out)
	}
}

// Below Landlock ABI 4 (simulated: ABI 3) a port list cannot be enforced and binding cannot be
// denied: a required sandbox with a list refuses, saying the list is not enforced; one not
// required, and one with the network allowed, start, and what they say they apply names what is
// not enforced; the child can indeed bind.
func TestBelowABI4(t *testing.T) {
	if Probe().LandlockABI < 4 {
		t.Skip("the kernel's Landlock is below ABI 4")
	}
	t.Setenv(simulateEnv, "abi=3")
	if got := Probe().LandlockABI; got != 3 {
		t.Fatalf("simulated ABI %d, want 3", got)
	}
	list := decl.Network{Mode: decl.NetworkList, Allow: []string{"127.0.0.1:443"}}
	cmd := child(t, "bind:127.0.0.1:0")
	_, err := Command(Resolve("web", &decl.Sandbox{Network: list}, cmd), cmd)
	if want := "network list not enforced: Landlock ABI 3 < 4"; !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), want) {
		t.Errorf("required, with a network list: err %v, want ErrUnavailable saying %q", err, want)
	}
	if _, err := Preview("web", &decl.Sandbox{Network: list}); err == nil || !strings.Contains(err.Error(), "network list not enforced") {
		t.Errorf("Preview, required, with a network list: err %v", err)
	}
	no := false
	for _, c := range []struct {
		s    *decl.Sandbox
		want string
	}{
		{&decl.Sandbox{Network: list, Required: &no}, "network list not enforced: Landlock ABI 3 < 4"},
		{&decl.Sandbox{}, "bind not denied: Landlock ABI 3 < 4"},
	} {
		cmd := child(t, "bind:127.0.0.1:0")
		l, err := Command(Resolve("web", c.s, cmd), cmd)
		if err != nil {
			t.Fatalf("%s: %v", c.s, err)
		}
		if !strings.Contains(l.String(), c.want) {
			t.Errorf("%s: launch says %q, want %q", c.s, l, c.want)
		}
		if p, err := Preview("web", c.s); err != nil || !strings.Contains(p.String(), c.want) {
			t.Errorf("%s: Preview says %v, %v, want %q", c.s, p, err, c.want)
		}
		if out, ok := run(t, nil, cmd); !ok {
			t.Errorf("%s: at ABI 3 the child could not bind: %s", c.s, out)
		}
		l.Cleanup()
	}
}
