// Command agentpool-sandbox starts agentpool's sandboxed servers: agentpool starts it with
// the server's command and the descriptor of the Landlock rule set it built, and it binds the
// rules to itself (and a seccomp filter) and then executes the server in its place, keeping
// the pid, the process group and the parent. It is not run by hand; agentpool finds it beside
// its own executable, or at $AGENTPOOL_SANDBOX_LAUNCHER.
//
// On linux/amd64, linked with -ldflags=-E=main.start (as `make build` and the README's
// install line do), its entry point is start (start_amd64.s): assembly that does the
// launcher's whole job with raw system calls and never starts Go's runtime, so that a
// sandboxed server starts about as fast as a plain one. Built without the flag (a plain `go
// install`), or on another architecture, main runs package launch's Go code instead: the same
// job and the same messages, with the Go runtime's start (a few milliseconds) before each
// server.
package main

import (
	"os"

	"github.com/agentpool/agentpool/sandbox/launch"
)

// notByHand is what the launcher says when it was not started by agentpool; it exits 2.
const notByHand = "agentpool-sandbox: started by agentpool to launch a sandboxed server; it is not run by hand\n"

func main() {
	launch.Main()
	os.Stderr.WriteString(notByHand)
	os.Exit(2)
}
