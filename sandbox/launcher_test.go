package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// secretOutside writes a file in a folder of its own and returns its path.
func secretOutside(t *testing.T) string {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	return secret
}

// With $AGENTPOOL_SANDBOX_LAUNCHER set, a sandboxed command starts through that launcher,
// which confines it: a file outside its paths cannot be read, one inside can.
func TestLauncher(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	want := os.Getenv(LauncherEnv)
	if want == "" {
		t.Fatalf("$%s is not set: TestMain sets it", LauncherEnv)
	}
	secret := secretOutside(t)
	cmd := child(t, "read:"+secret)
	l, err := Command(Resolve("l", &decl.Sandbox{}, cmd), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cleanup()
	if l.Launcher != ByLauncher || cmd.Path != want || cmd.Args[0] != want {
		t.Fatalf("launcher %q, path %s, args %q: want %s through %s", l.Launcher, cmd.Path, cmd.Args, ByLauncher, want)
	}
	if strings.Contains(l.String(), "re-exec") {
		t.Errorf("String %q speaks of re-executing", l.String())
	}
	if out, ok := run(t, nil, cmd); ok || !strings.Contains(out, "denied") {
		t.Errorf("through the launcher, reading %s: %s", secret, out)
	}
	allowed := filepath.Dir(secret)
	cmd = child(t, "read:"+secret)
	if out, ok := run(t, Resolve("l", &decl.Sandbox{Read: []string{allowed}}, cmd), cmd); !ok {
		t.Errorf("through the launcher, reading %s, which the policy allows: %s", secret, out)
	}
}

// Without a launcher, a sandboxed command starts through this program re-executed (Main),
// confined the same, and the Launch says it took the slower way.
func TestReExecFallback(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	t.Setenv(LauncherEnv, "")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	secret := secretOutside(t)
	cmd := child(t, "read:"+secret)
	l, err := Command(Resolve("l", &decl.Sandbox{}, cmd), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cleanup()
	if l.Launcher != ByReExec || cmd.Path != self {
		t.Fatalf("launcher %q, path %s: want %s of %s", l.Launcher, cmd.Path, ByReExec, self)
	}
	if !strings.Contains(l.String(), "re-executing agentpool") {
		t.Errorf("String %q does not say the start re-executes agentpool", l.String())
	}
	if out, ok := run(t, nil, cmd); ok || !strings.Contains(out, "denied") {
		t.Errorf("re-executed, reading %s: %s", secret, out)
	}
}

// A launcher named by $AGENTPOOL_SANDBOX_LAUNCHER that is not there refuses the start, naming
// the variable and the path, as an error starting again cannot mend.
func TestLauncherMissing(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	missing := filepath.Join(t.TempDir(), "agentpool-sandbox")
	t.Setenv(LauncherEnv, missing)
	cmd := child(t, "tmp")
	path := cmd.Path
	_, err := Command(Resolve("l", &decl.Sandbox{}, cmd), cmd)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), LauncherEnv) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err = %v, want fs.ErrNotExist naming $%s and %s", err, LauncherEnv, missing)
	}
	if cmd.Path != path {
		t.Errorf("command rewritten to %s", cmd.Path)
	}
}

// Preview says which way a server would start: through the launcher quietly, re-executing
// agentpool with a word on the slower start.
func TestPreviewLauncher(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	l, err := Preview("p", &decl.Sandbox{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Launcher != ByLauncher || strings.Contains(l.String(), "re-exec") {
		t.Errorf("with a launcher: %q, %q", l.Launcher, l.String())
	}
	t.Setenv(LauncherEnv, "")
	if l, err = Preview("p", &decl.Sandbox{}); err != nil {
		t.Fatal(err)
	}
	if l.Launcher != ByReExec || !strings.Contains(l.String(), "re-executing agentpool") {
		t.Errorf("without a launcher: %q, %q", l.Launcher, l.String())
	}
}

// A relative $AGENTPOOL_SANDBOX_LAUNCHER names the launcher from this program's working
// folder, the one checked, whatever folder the server starts in: a program of that name in
// the server's folder does not start in its place.
func TestLauncherRelative(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	real := os.Getenv(LauncherEnv)
	if real == "" {
		t.Skipf("$%s is not set", LauncherEnv)
	}
	here, serverDir := t.TempDir(), t.TempDir()
	if err := os.Symlink(real, filepath.Join(here, ByLauncher)); err != nil {
		t.Fatal(err)
	}
	// In the server's folder, a program of the launcher's name that runs the server as it is.
	if err := os.WriteFile(filepath.Join(serverDir, ByLauncher), []byte("#!/bin/sh\nexec \"$2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(here)
	t.Setenv(LauncherEnv, ByLauncher)
	secret := secretOutside(t)
	cmd := child(t, "read:"+secret)
	cmd.Dir = serverDir
	if out, ok := run(t, Resolve("l", &decl.Sandbox{}, cmd), cmd); ok || !strings.Contains(out, "denied") {
		t.Errorf("with $%s=%s and the server in %s, reading %s: %s", LauncherEnv, ByLauncher, serverDir, secret, out)
	}
}

// A program named agentpool-sandbox beside this program's executable is taken for the
// launcher only when no other user could have put it there or changed it: one that another
// user owns (or a link another user made), or that anyone may write, is passed over for the
// re-executed fallback, and the server is confined all the same.
func TestLauncherBesideUntrusted(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(self), ByLauncher)
	if _, err := os.Lstat(beside); err == nil {
		t.Skipf("%s exists", beside)
	}
	t.Setenv(LauncherEnv, "")
	unconfined := []byte("#!/bin/sh\nexec \"$2\"\n") // runs the server as it is
	plants := map[string]func() error{
		"writable by anyone": func() error {
			if err := os.WriteFile(beside, unconfined, 0o755); err != nil {
				return err
			}
			return os.Chmod(beside, 0o777)
		},
	}
	if os.Getuid() == 0 {
		const nobody = 65534
		plants["another user's"] = func() error {
			if err := os.WriteFile(beside, unconfined, 0o755); err != nil {
				return err
			}
			return os.Chown(beside, nobody, nobody)
		}
		plants["another user's link"] = func() error {
			script := filepath.Join(t.TempDir(), "script")
			if err := os.WriteFile(script, unconfined, 0o755); err != nil {
				return err
			}
			if err := os.Symlink(script, beside); err != nil {
				return err
			}
			return os.Lchown(beside, nobody, nobody)
		}
	}
	for name, plant := range plants {
		t.Run(name, func(t *testing.T) {
			t.Cleanup(func() { os.Remove(beside) })
			if err := plant(); err != nil {
				t.Fatal(err)
			}
			secret := secretOutside(t)
			cmd := child(t, "read:"+secret)
			l, err := Command(Resolve("l", &decl.Sandbox{}, cmd), cmd)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Cleanup()
			if l.Launcher != ByReExec || cmd.Path != self {
				t.Errorf("launcher %q, path %s: want %s of %s", l.Launcher, cmd.Path, ByReExec, self)
			}
			if out, ok := run(t, nil, cmd); ok || !strings.Contains(out, "denied") {
				t.Errorf("reading %s: %s", secret, out)
			}
		})
	}
}

// The server inherits no descriptor of the sandbox's: through the launcher and through the
// re-executed fallback it has the descriptors it has unsandboxed (the launcher closes the
// Landlock rule set it inherits before executing the server).
func TestNoDescriptorInherited(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	// The server's stdout is a pipe whose inode differs from run to run.
	fds := func(out string) string {
		var kept []string
		for _, line := range strings.Split(out, "\n") {
			n, target, _ := strings.Cut(line, " ")
			if strings.HasPrefix(target, "pipe:") {
				target = "pipe"
			}
			kept = append(kept, n+" "+target)
		}
		return strings.Join(kept, "\n")
	}
	plain, ok := run(t, nil, child(t, "fds"))
	if !ok {
		t.Fatalf("unsandboxed: %s", plain)
	}
	for _, launcher := range []string{os.Getenv(LauncherEnv), ""} {
		t.Setenv(LauncherEnv, launcher)
		cmd := child(t, "fds")
		out, ok := run(t, Resolve("fds", &decl.Sandbox{}, cmd), cmd)
		if !ok || fds(out) != fds(plain) || strings.Contains(out, "landlock") {
			t.Errorf("launcher %q: the server has\n%s\nunsandboxed\n%s", launcher, out, plain)
		}
	}
}

// A sandboxed server reads its own /proc/self, not that of the process that built its rules
// (agentpool's environment holds its secrets), through the launcher and re-executed alike.
func TestProcSelfIsTheServers(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	parent := "/proc/" + strconv.Itoa(os.Getpid()) + "/environ"
	if out, ok := run(t, nil, child(t, "read:"+parent)); !ok {
		t.Fatalf("unsandboxed, reading %s: %s", parent, out)
	}
	for _, launcher := range []string{os.Getenv(LauncherEnv), ""} {
		t.Setenv(LauncherEnv, launcher)
		cmd := child(t, "read:/proc/self/status")
		if out, ok := run(t, Resolve("proc", &decl.Sandbox{}, cmd), cmd); !ok {
			t.Errorf("launcher %q, reading /proc/self/status: %s", launcher, out)
		}
		cmd = child(t, "read:"+parent)
		if out, ok := run(t, Resolve("proc", &decl.Sandbox{}, cmd), cmd); ok || !strings.Contains(out, "denied") {
			t.Errorf("launcher %q, reading %s: %s", launcher, parent, out)
		}
	}
}

// A declared path that leads into /proc/self through a symbolic link (a link of the user's,
// /proc/net) grants nothing of the process that built the rules: the server cannot read
// agentpool's environment or its network files through it.
func TestProcSelfByLinkNotGranted(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	link := filepath.Join(t.TempDir(), "me")
	if err := os.Symlink("/proc/self", link); err != nil {
		t.Fatal(err)
	}
	parent := "/proc/" + strconv.Itoa(os.Getpid())
	launchers := []string{os.Getenv(LauncherEnv), ""}
	for _, c := range []struct{ declared, read string }{
		{link, parent + "/environ"},
		{"/proc/net", parent + "/net/dev"},
	} {
		if out, ok := run(t, nil, child(t, "read:"+c.read)); !ok {
			t.Fatalf("unsandboxed, reading %s: %s", c.read, out)
		}
		for _, launcher := range launchers {
			t.Setenv(LauncherEnv, launcher)
			cmd := child(t, "read:"+c.read)
			if out, ok := run(t, Resolve("proc", &decl.Sandbox{Read: []string{c.declared}}, cmd), cmd); ok || !strings.Contains(out, "denied") {
				t.Errorf("launcher %q, %s declared, reading %s: %s", launcher, c.declared, c.read, out)
			}
		}
	}
}

// A declared path that leads through one of /proc's descriptor links (/dev/fd/N, /dev/stdin)
// grants nothing of what the process that built the rules has open: the server cannot read
// the file behind agentpool's descriptor N.
func TestDescriptorLinkNotGranted(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	secret := secretOutside(t)
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	declared := "/dev/fd/" + strconv.Itoa(int(f.Fd()))
	for _, launcher := range []string{os.Getenv(LauncherEnv), ""} {
		t.Setenv(LauncherEnv, launcher)
		cmd := child(t, "read:"+secret)
		if out, ok := run(t, Resolve("fd", &decl.Sandbox{Read: []string{declared}}, cmd), cmd); ok || !strings.Contains(out, "denied") {
			t.Errorf("launcher %q, %s declared, reading %s: %s", launcher, declared, secret, out)
		}
	}
}
