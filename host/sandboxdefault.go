package host

import (
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
)

// ProjectSandbox is the sandbox that a trusted project in dir gives its stdio servers that
// declare none, under the user's config user: the project folder read-write, not required;
// nil when user's top-level sandbox is off (every default off). `agentpool trust` shows it.
func ProjectSandbox(user *config.Config, dir string) *decl.Sandbox {
	if user != nil && user.Sandbox != nil && user.Sandbox.Off {
		return nil
	}
	return projectSandbox(dir)
}

// Sandboxed returns spec, the server name of st's config declares, with the sandbox it runs
// under: its own sandbox key (none when off), else the default of where it is declared (the
// config's top-level sandbox, a plugin's or a trusted project's). The status page shows it for
// a session-scoped server none of whose instances runs yet.
func (st *State) Sandboxed(name string, spec decl.Server) decl.Server {
	return st.sandboxed(name, spec)
}
