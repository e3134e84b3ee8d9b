package gateway_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchBuildChild makes a test process build the serve binary and print its path.
const benchBuildChild = "AGENTPOOL_TEST_BENCH_BUILD_CHILD"

// The serve binary the process benchmarks build (over 100 MB) is removed when the test
// process ends, not left in the temporary directory once per run.
func TestServeBinaryRemovedAtExit(t *testing.T) {
	if os.Getenv(benchBuildChild) != "" {
		os.Stdout.WriteString("built " + benchServeBinary(t) + "\n")
		return
	}
	if testing.Short() {
		t.Skip("builds cmd/agentpool")
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestServeBinaryRemovedAtExit$", "-test.count", "1")
	cmd.Env = append(os.Environ(), benchBuildChild+"=1", "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	_, rest, ok := bytes.Cut(out, []byte("built "))
	if !ok {
		t.Fatalf("child printed no path:\n%s", out)
	}
	bin, _, _ := strings.Cut(string(rest), "\n")
	if !strings.HasPrefix(bin, tmp) {
		t.Fatalf("binary %s not under TMPDIR %s", bin, tmp)
	}
	if _, err := os.Stat(filepath.Dir(bin)); !os.IsNotExist(err) {
		t.Errorf("build folder %s still there after the process ended (stat: %v)", filepath.Dir(bin), err)
	}
}
