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
