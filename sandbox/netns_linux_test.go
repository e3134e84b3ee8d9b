package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/sandbox/launch"
)

// ownNamespaces returns the user and network namespaces of this process, as the "ns" action
// prints them.
func ownNamespaces(t *testing.T) []string {
	t.Helper()
	var ns []string
	for _, n := range []string{"user", "net"} {
		l, err := os.Readlink("/proc/self/ns/" + n)
		if err != nil {
			t.Fatal(err)
		}
		ns = append(ns, l)
	}
	return ns
}

// noNetwork checks that cmd, started by Command for network: none, runs in a user and a
// network namespace of its own, made by the launcher (byLauncher: no clone flags, the map
// lines on its command line) or at the start (the clone flags, no map lines).
func noNetwork(t *testing.T, cmd *exec.Cmd, byLauncher bool) {
	t.Helper()
	p := Resolve("offline", &decl.Sandbox{Network: decl.Network{Mode: decl.NetworkNone}}, cmd)
	l, err := Command(p, cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cleanup()
	if !l.NetNS {
		t.Error("Launch.NetNS false for network: none")
	}
	flags := cmd.SysProcAttr != nil && cmd.SysProcAttr.Cloneflags&(syscall.CLONE_NEWUSER|syscall.CLONE_NEWNET) != 0
	mapped := slices.Contains(cmd.Args, launch.MapLine(os.Getuid()))
	if flags == byLauncher || mapped != byLauncher {
		t.Errorf("clone flags %v, map lines in %q: want the namespaces made by the launcher %v", flags, cmd.Args, byLauncher)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, ours := strings.Fields(string(out)), ownNamespaces(t)
	if len(got) != 3 || got[0] == ours[0] || got[1] == ours[1] {
		t.Errorf("the server's namespaces %q, this process's %q: want its own", got, ours)
	}
}

// Through the assembly launcher, network: none starts without clone flags (a plain start) and
// the launcher makes the namespaces; through the Go launcher, which cannot, the start makes
// them. Either way the server is in its own user and network namespaces.
func TestNetworkNoneNamespaces(t *testing.T) {
	if !Probe().UserNS {
		t.Skip("no unprivileged user namespaces")
	}
	asm := len(testserver.LauncherFlags()) > 0
	t.Run("launcher", func(t *testing.T) { noNetwork(t, child(t, "ns"), asm) })
	plain := filepath.Join(t.TempDir(), ByLauncher)
	if out, err := exec.Command("go", "build", "-o", plain, testserver.LauncherPkg).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv(LauncherEnv, plain)
	t.Run("go launcher", func(t *testing.T) { noNetwork(t, child(t, "ns"), false) })
	t.Setenv(LauncherEnv, "")
	t.Run("re-exec", func(t *testing.T) { noNetwork(t, child(t, "ns"), false) })
}

// A launcher rewritten in place, at the same path, inode, size and modification time, is
// asked again whether it makes the namespaces: its change time differs.
func TestMakesNamespacesRewritten(t *testing.T) {
	flags := testserver.LauncherFlags()
	if len(flags) == 0 {
		t.Skip("no assembly entry on this architecture")
	}
	dir := t.TempDir()
	var bins [2][]byte
	for i, f := range [][]string{flags, nil} {
		out := filepath.Join(dir, "bin")
		args := append(append([]string{"build", "-o", out}, f...), testserver.LauncherPkg)
		if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		bins[i] = b
	}
	size := max(len(bins[0]), len(bins[1]))
	path := filepath.Join(dir, ByLauncher)
	write := func(b []byte) {
		t.Helper()
		padded := append(slices.Clone(b), make([]byte, size-len(b))...)
		if err := os.WriteFile(path, padded, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(bins[0])
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !makesNamespaces(path) {
		t.Fatal("the assembly entry: makesNamespaces false")
	}
	ctime := func() int64 {
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ctim.Nano()
	}
	before := ctime()
	write(bins[1])
	// The change time ticks coarsely: set the times again until it has moved.
	for first := true; first || ctime() == before; first = false {
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	if makesNamespaces(path) {
		t.Error("the Go launcher written over the assembly entry in place: makesNamespaces still true")
	}
}

// A launcher that does not answer the probe is taken for one that does not make namespaces,
// after probeWait, instead of holding every network none start for ever.
func TestMakesNamespacesHungLauncher(t *testing.T) {
	defer func(w time.Duration) { probeWait = w }(probeWait)
	probeWait = 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), ByLauncher)
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() { done <- makesNamespaces(path) }()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("a launcher that never answered: makesNamespaces true")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("makesNamespaces still waiting for a launcher that never answers")
	}
}
