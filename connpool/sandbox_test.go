package connpool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/sandbox"
)

// procStatus returns the value of key in /proc/pid/status.
func procStatus(t *testing.T, pid int, key string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// rulesetsOpen returns the descriptors of this process that are Landlock rule sets.
func rulesetsOpen(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var fds []string
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(l, "landlock") {
			fds = append(fds, e.Name()+" → "+l)
		}
	}
	return fds
}

// A server with a sandbox starts through the sandbox's entry point and is the same process
// in its own group: it answers, its Conn says what was applied, agentpool keeps no copy of its rule set, and the guard and Close still
// end its whole group (in user and network namespaces of its own too, for network: none).
func TestSandboxedServer(t *testing.T) {
	s := sandbox.Probe()
	if s.LandlockABI < 1 || !s.UserNS {
		t.Skipf("the kernel lacks Landlock or user namespaces: %+v", s)
	}
	for _, network := range []string{decl.NetworkAll, decl.NetworkNone} {
		t.Run(network, func(t *testing.T) {
			p := newTestPool(t, nil)
			cfg := faultCfg(t, "--linger", "1m")
			cfg.Sandbox = &decl.Sandbox{Network: decl.Network{Mode: network}}
			c := mustGet(t, p, cfg, GlobalPartition)
			mustCall(t, c, "echo", map[string]any{"text": "hi"})
			l := c.Sandbox()
			if l == nil || l.ABI != s.LandlockABI || l.NetNS != (network == decl.NetworkNone) || l.Launcher != sandbox.ByLauncher {
				t.Fatalf("Sandbox() = %+v, want ABI %d through the launcher", l, s.LandlockABI)
			}
			if fds := rulesetsOpen(t); fds != nil {
				t.Errorf("this process still holds the server's rule set: %v", fds)
			}
			pid := c.PID()
			if nnp, sc := procStatus(t, pid, "NoNewPrivs"), procStatus(t, pid, "Seccomp"); nnp != "1" || sc != "2" {
				t.Errorf("server pid %d: NoNewPrivs %s, Seccomp %s: not sandboxed", pid, nnp, sc)
			}
			for _, ns := range []string{"user", "net"} {
				theirs, err1 := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, ns))
				ours, err2 := os.Readlink("/proc/self/ns/" + ns)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s namespaces: %v, %v", ns, err1, err2)
				}
				if (theirs != ours) != (network == decl.NetworkNone) {
					t.Errorf("server pid %d: %s namespace %s, this process's %s", pid, ns, theirs, ours)
				}
			}
			if _, err := os.Stat(l.TmpDir); err != nil {
				t.Errorf("private TMPDIR: %v", err)
			}
			c.c.proc.guardW.Close() // as this process's death would
			waitDone(t, c)
			p.Release(c)
			waitGroupGone(t, pid)
			if _, err := os.Stat(l.TmpDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("private TMPDIR %s left behind: %v", l.TmpDir, err)
			}
		})
	}
}

// Where the kernel lacks what a required sandbox needs, the start fails at once, for good, in
// one line naming the server, what is missing and required: false, and nothing runs.
func TestSandboxUnavailable(t *testing.T) {
	t.Setenv("AGENTPOOL_SANDBOX_SIMULATE", "no-landlock")
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	cfg.Sandbox = &decl.Sandbox{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := p.Get(ctx, cfg, GlobalPartition)
	if !errors.Is(err, ErrPermanent) || !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("err = %v, want a permanent start error wrapping sandbox.ErrUnavailable", err)
	}
	msg := err.Error()
	for _, want := range []string{`"fault"`, "Landlock", "required: false"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("%q is more than one line", msg)
	}
	if n := p.Stats().Processes; n != 0 {
		t.Errorf("%d processes started", n)
	}

	no := false
	cfg.Sandbox = &decl.Sandbox{Required: &no}
	c := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(c)
	if l := c.Sandbox(); l == nil || l.ABI != 0 || l.Missing == "" {
		t.Errorf("not required: Sandbox() = %+v, want ABI 0 and what is missing", l)
	}
}

// A sandbox is part of what identifies a server: the same command with and without one, or
// with another, are not shared.
func TestSandboxFingerprint(t *testing.T) {
	a := ServerConfig{Server: decl.Server{Command: "x"}}
	b, c := a, a
	b.Sandbox = &decl.Sandbox{}
	c.Sandbox = &decl.Sandbox{Read: []string{"/p"}}
	if a.Fingerprint() == b.Fingerprint() || b.Fingerprint() == c.Fingerprint() {
		t.Error("a sandbox does not change the fingerprint")
	}
	off := a
	off.Sandbox = &decl.Sandbox{Off: true}
	if off.Fingerprint() != a.Fingerprint() {
		t.Error("sandbox: off changes the fingerprint of a server without one")
	}
}
