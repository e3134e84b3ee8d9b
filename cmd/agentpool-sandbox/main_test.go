//go:build linux

package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/sandbox/launch"
)

// layersEnv makes the test binary a process that stacks Landlock's most domains (16) on its
// thread, each allowing everything, and then executes its arguments with a new rule set as
// descriptor 3: binding that one fails.
const layersEnv = "LAUNCHER_TEST_LAYERS"

func TestMain(m *testing.M) {
	if _, ok := os.LookupEnv(layersEnv); ok {
		runtime.LockOSThread()
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, 38, 1, 0, 0, 0, 0); errno != 0 {
			panic(errno)
		}
		all := launch.Rules{ABI: launch.KernelABI(), Write: []string{"/"}, Exec: []string{"/"}}
		for range 16 {
			rules, err := launch.Ruleset(all)
			if err != nil {
				panic(err)
			}
			if _, _, errno := syscall.RawSyscall(446, rules.Fd(), 0, 0); errno != 0 {
				panic(errno)
			}
			rules.Close()
		}
		rules, err := launch.Ruleset(all)
		if err != nil {
			panic(err)
		}
		if err := syscall.Dup3(int(rules.Fd()), 3, 0); err != nil {
			panic(err)
		}
		panic(syscall.Exec(os.Args[1], os.Args[1:], os.Environ()))
	}
	os.Exit(m.Run())
}

// build compiles this program into dir with flags.
func build(t *testing.T, name string, flags ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	args := append(append([]string{"build", "-o", path}, flags...), testserver.LauncherPkg)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go build %q: %v\n%s", args, err, out)
	}
	return path
}

// The launcher built as `make build` builds it (its assembly entry point on linux/amd64) and
// the one built without flags (package launch's Go code) refuse alike, each bad launch with
// the same one line on stderr and the same status: run by hand, a launch of another format,
// no server, a bad descriptor (not a number, not open, not a rule set), a rule set that
// cannot be bound, a server that cannot be executed; and both execute a good one. Only the
// assembly entry makes namespaces (see TestNamespaces).
func TestLaunchersAlike(t *testing.T) {
	if launch.KernelABI() < 1 {
		t.Skip("no Landlock")
	}
	flags := testserver.LauncherFlags()
	fast := build(t, "fast", flags...)
	plain := build(t, "plain")
	if len(flags) > 0 {
		f, err := elf.Open(fast)
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := f.Symbols()
		f.Close()
		entry := false
		for _, s := range syms {
			entry = entry || (s.Name == "main.start" || s.Name == "main.start.abi0") && s.Value == f.Entry
		}
		if !entry {
			t.Fatalf("%s built with %q does not enter at main.start", fast, flags)
		}
	}
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		status int
		stderr string
		stdout string
	}
	for _, c := range []struct {
		name   string
		args   []string
		extra  *os.File // descriptor 3
		layers bool     // started by a process with 16 Landlock domains
		status int
	}{
		{name: "by hand", args: nil, status: 2},
		{name: "another format", args: []string{"__agentpool-sandbox", "/bin/echo", "echo"}, status: 126},
		{name: "no server", args: []string{launch.Marker, "3"}, status: 126},
		{name: "no server after the namespaces", args: []string{launch.Marker, "3", launch.NoNamespaces, launch.NoNamespaces}, status: 126},
		{name: "descriptor not a number", args: []string{launch.Marker, "3x", launch.NoNamespaces, launch.NoNamespaces, "/bin/echo", "echo"}, status: 126},
		{name: "descriptor not open", args: []string{launch.Marker, "9", launch.NoNamespaces, launch.NoNamespaces, "/bin/echo", "echo"}, status: 126},
		{name: "descriptor not a rule set", args: []string{launch.Marker, "3", launch.NoNamespaces, launch.NoNamespaces, "/bin/echo", "echo"}, extra: devNull, status: 126},
		{name: "restrict fails", args: []string{launch.Marker, "3", launch.NoNamespaces, launch.NoNamespaces, "/bin/echo", "echo", "no"}, layers: true, status: 126},
		{name: "server missing", args: []string{launch.Marker, launch.NoRules, launch.NoNamespaces, launch.NoNamespaces, "/nonexistent/server", "server"}, status: 126},
		{name: "no rules", args: []string{launch.Marker, launch.NoRules, launch.NoNamespaces, launch.NoNamespaces, "/bin/echo", "echo", "hello"}, status: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got [2]result
			for i, launcher := range []string{fast, plain} {
				cmd := exec.Command(launcher, c.args...)
				if c.layers {
					cmd = exec.Command(self, append([]string{launcher}, c.args...)...)
					cmd.Env = append(os.Environ(), layersEnv+"=1")
				}
				if c.extra != nil {
					cmd.ExtraFiles = []*os.File{c.extra}
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					t.Fatal(err)
				}
				got[i] = result{cmd.ProcessState.ExitCode(), stderr.String(), stdout.String()}
			}
			if got[0] != got[1] {
				t.Errorf("the launcher built with %q: %+v\nbuilt without: %+v", flags, got[0], got[1])
			}
			if got[1].status != c.status || c.status != 0 && bytes.Count([]byte(got[1].stderr), []byte("\n")) != 1 {
				t.Errorf("status %d, stderr %q: want %d and one line", got[1].status, got[1].stderr, c.status)
			}
			t.Logf("%d %q", got[0].status, got[0].stderr)
		})
	}
}

// namespaces returns the user and network namespaces of this process, as /proc shows them.
func namespaces(t *testing.T) string {
	t.Helper()
	user, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		t.Skip(err)
	}
	net, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Skip(err)
	}
	return user + "\n" + net + "\n"
}

// The assembly entry answers the probe and makes the user and network namespaces it is given
// the map lines of, before executing the server, which runs in them with this process's uid
// and gid; a failing step is one line and status 126. The Go code refuses both: it cannot
// make a user namespace (it has threads), and a launch that asks for one does not start.
func TestNamespaces(t *testing.T) {
	flags := testserver.LauncherFlags()
	if len(flags) == 0 {
		t.Skip("no assembly entry on this architecture")
	}
	ours := namespaces(t)
	try := exec.Command("unshare", "-Urn", "true")
	if try.Run() != nil {
		t.Skip("no unprivileged user and network namespaces")
	}
	fast := build(t, "fast", flags...)
	plain := build(t, "plain")
	uid, gid := launch.MapLine(os.Getuid()), launch.MapLine(os.Getgid())
	launchArgs := func(uidMap string) []string {
		return []string{launch.Marker, launch.NoRules, uidMap, gid, "/bin/sh", "sh", "-c", "readlink /proc/self/ns/user /proc/self/ns/net; id -u; id -g"}
	}
	runs := func(launcher string, args ...string) (int, string, string) {
		cmd := exec.Command(launcher, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}

	if status, out, errs := runs(fast, launch.Marker, launch.Probe); status != 0 || out != "" || errs != "" {
		t.Errorf("the assembly entry asked %q: status %d, %q %q; want 0 and nothing", launch.Probe, status, out, errs)
	}
	if status, _, _ := runs(plain, launch.Marker, launch.Probe); status == 0 {
		t.Errorf("the Go code asked %q: status 0", launch.Probe)
	}

	status, out, errs := runs(fast, launchArgs(uid)...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	lines := strings.SplitAfterN(out, "\n", 3)
	if len(lines) != 3 {
		t.Fatalf("output %q", out)
	}
	if got := lines[0] + lines[1]; got == ours || lines[0] == strings.SplitAfter(ours, "\n")[0] || lines[1] == strings.SplitAfter(ours, "\n")[1] {
		t.Errorf("the server's namespaces %q, this process's %q: want both its own", got, ours)
	}
	if want := fmt.Sprintf("%d\n%d\n", os.Getuid(), os.Getgid()); lines[2] != want {
		t.Errorf("the server's uid and gid %q, want %q (mapped to themselves)", lines[2], want)
	}

	status, _, errs = runs(fast, launchArgs("x")...)
	if want := "agentpool sandbox: write /proc/self/uid_map failed: errno 22\n"; status != 126 || errs != want {
		t.Errorf("a bad uid map line: status %d, %q; want 126 and %q", status, errs, want)
	}
	status, out, errs = runs(fast, launchArgs(launch.NoNamespaces)...)
	if status != 126 || out != "" || strings.Count(errs, "\n") != 1 {
		t.Errorf("no uid map line but a gid map line: status %d, %q %q; want 126, nothing run and one line", status, out, errs)
	}
	status, _, errs = runs(plain, launchArgs(uid)...)
	if status != 126 || !strings.Contains(errs, "namespaces") || strings.Count(errs, "\n") != 1 {
		t.Errorf("the Go code asked for namespaces: status %d, %q; want 126 and one line", status, errs)
	}
}
