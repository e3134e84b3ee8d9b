// Command agentpool-sandbox starts agentpool's sandboxed servers: agentpool starts it with
// the server's command and its sandbox, and it applies the sandbox to itself (Landlock rules,
// a seccomp filter) and then executes the server in its place, keeping the pid, the process
// group and the parent. It is agentpool's own entry point for this, re-executed, in a program
// that initialises nothing else, so that a sandboxed server starts about as fast as a plain
// one. It is not run by hand; agentpool finds it beside its own executable, or at
// $AGENTPOOL_SANDBOX_LAUNCHER.
package main

import (
	"os"

	"github.com/agentpool/agentpool/sandbox/launch"
)

func main() {
	launch.Main()
	os.Stderr.WriteString("agentpool-sandbox: started by agentpool to launch a sandboxed server; it is not run by hand\n")
	os.Exit(2)
}
