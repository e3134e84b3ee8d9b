package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentpool/agentpool/sandbox"
)

// TestHostileServerNoNetwork: the same server under network: none, in user and network
// namespaces of its own, fails at every attempt, the listed address of the other test
// included (it reaches no network at all), and nothing happened outside.
func TestHostileServerNoNetwork(t *testing.T) {
	t.Parallel()
	if !sandbox.Probe().UserNS {
		t.Skip("no unprivileged user namespaces")
	}
	b := newHostileBed(t)
	cs, stderr := serveHostile(t, b, "    sandbox: {read: ["+b.allowed+"], network: none}\n")
	attempts := append(b.attempts(), hostileAttempt{"connect to a loopback listener", "connect", map[string]any{"addr": b.given}})
	for _, a := range attempts {
		out := try(t, cs, a)
		switch {
		case out.OK:
			t.Errorf("%s: succeeded under network: none", a.what)
		case !denied(out.Error):
			t.Errorf("%s: failed with %q, want the sandbox's denial; serve's stderr:\n%s", a.what, out.Error, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(b.outside, "dropped.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write outside left a file (stat: %v)", err)
	}
	select {
	case <-b.exited:
		t.Errorf("the user's process ended: %v", b.sleeper.ProcessState)
	default:
	}
}
