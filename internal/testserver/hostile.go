package testserver

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	hostileOnce sync.Once
	hostilePath string
	hostileErr  string
)

// BuildHostile compiles the hostileserver binary (cmd/hostileserver: tools that read, write,
// connect, bind, signal and run what they are told and say whether the system let them) once
// per test process, beside the faultserver's, and returns its path. A build failure fails t.
// It is safe for concurrent use.
func BuildHostile(t testing.TB) string {
	t.Helper()
	dir := filepath.Dir(Build(t))
	hostileOnce.Do(func() {
		path := filepath.Join(dir, "hostileserver")
		cmd := exec.Command("go", "build", "-o", path, "github.com/agentpool/agentpool/internal/testserver/cmd/hostileserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			hostileErr = "hostileserver: go build: " + err.Error() + "\n" + string(out)
			return
		}
		hostilePath = path
	})
	if hostileErr != "" {
		t.Fatal(hostileErr)
	}
	return hostilePath
}
