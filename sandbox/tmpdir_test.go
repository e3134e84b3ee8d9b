package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// A private temporary folder is named after the process that made it: its pid, its start
// time and its pid namespace.
func TestTmpDirNamesItsOwner(t *testing.T) {
	if Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	t.Setenv("TMPDIR", t.TempDir())
	cmd := child(t, "tmp")
	l, err := Command(Resolve("t", &decl.Sandbox{}, cmd), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cleanup()
	want := tmpPrefix + strconv.Itoa(os.Getpid()) + "." + startTime(os.Getpid()) + "." + pidNS() + "-"
	if got := filepath.Base(l.TmpDir); !strings.HasPrefix(got, want) {
		t.Errorf("private TMPDIR %s, want a name starting %s", got, want)
	}
}

// SweepStale removes the private temporary folders of processes that are gone, or whose pid
// now belongs to a process started at another time, and keeps those of live owners, of
// other pid namespaces and folders it did not name.
func TestSweepStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	self := strconv.Itoa(os.Getpid())
	mine, ns := startTime(os.Getpid()), pidNS()
	if mine == "" || ns == "" {
		t.Skip("no /proc")
	}
	dirs := map[string]bool{ // name: kept
		tmpPrefix + self + "." + mine + "." + ns + "-1":                          true,
		tmpPrefix + strconv.Itoa(gone.Process.Pid) + ".12345." + ns + "-2":       false,
		tmpPrefix + self + "." + mine + "0." + ns + "-3":                         false, // the pid reused
		tmpPrefix + "123456789":                                                  true,  // not named by owner
		"other-" + strconv.Itoa(gone.Process.Pid) + "." + mine + "." + ns + "-4": true,
		tmpPrefix + strconv.Itoa(gone.Process.Pid) + ".12345." + ns + "0-5":      true, // another pid namespace
	}
	for d := range dirs {
		if err := os.MkdirAll(filepath.Join(tmp, d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweepStale(tmp)
	for d, kept := range dirs {
		if _, err := os.Stat(filepath.Join(tmp, d)); (err == nil) != kept {
			t.Errorf("%s: stat %v, want kept %v", d, err, kept)
		}
	}
}
