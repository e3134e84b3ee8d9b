package testserver

import (
	"fmt"
	"os"
	"runtime"
)

var launcher = sibling{name: "agentpool-sandbox", pkg: LauncherPkg, flags: LauncherFlags()}

// LauncherPkg is the sandbox launcher's package.
const LauncherPkg = "github.com/agentpool/agentpool/cmd/agentpool-sandbox"

// LauncherFlags are the go build flags the launcher is built with, as `make build` builds it:
// on linux/amd64 its assembly entry point (-ldflags=-E=main.start), elsewhere none.
func LauncherFlags() []string {
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		return []string{"-ldflags=-E=main.start"}
	}
	return nil
}

// UseSandboxLauncher compiles the sandbox launcher (cmd/agentpool-sandbox, with
// LauncherFlags) once per test process, beside the faultserver's, and sets $AGENTPOOL_SANDBOX_LAUNCHER to it for this
// process and the processes it starts, so that sandboxed servers start through it as they do
// beside an installed agentpool. When the variable is set already (empty included: the
// fallback, agentpool re-executed) it is left as it is. Call it in TestMain (which has no
// testing.TB): a build failure ends the process with status 1 after saying why.
func UseSandboxLauncher() {
	if _, ok := os.LookupEnv("AGENTPOOL_SANDBOX_LAUNCHER"); ok {
		return
	}
	path, err := launcher.make()
	if err != "" {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("AGENTPOOL_SANDBOX_LAUNCHER", path)
}
