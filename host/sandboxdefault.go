package host

import (
	"path/filepath"
	"slices"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/trust"
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

// ProjectDeclSandbox returns the sandbox of d, a stdio server a trusted project declares,
// whose own sandbox key is kept within box (ProjectSandbox; nil: no ceiling), as the host
// runs it (decl.Sandbox.Within, relative paths against d's cwd or else its file's folder),
// with the warning line of what it refused as its Dropped; nil when d has no sandbox key.
// `agentpool trust` shows it.
func ProjectDeclSandbox(box *decl.Sandbox, d trust.Decl) *decl.Sandbox {
	if d.Sandbox == nil {
		return nil
	}
	st := &State{Config: &config.Config{}}
	spec := d.Server
	if spec.Cwd == "" {
		spec.Cwd = filepath.Dir(d.Where)
	}
	ceiling := box
	if box != nil && !slices.Contains(box.Write, filepath.Dir(d.Where)) {
		ceiling = folderSandbox(box, filepath.Dir(d.Where)) // a skill's folder
	}
	return st.foreignSandboxed(d.Name, d.Where, spec, ceiling).Sandbox
}

// WrittenSandboxPaths maps each sandbox path of st's config (its top-level sandbox and its
// servers' own, a trusted project's included) that ${VAR} expansion changed to its form as
// written (decl.Sandbox.AddWritten), for showing sandboxes as declared
// (decl.Sandbox.Shown). It reads the config files again (config.Config.Declared).
func (st *State) WrittenSandboxPaths() map[string]string {
	paths := map[string]string{}
	if st == nil || st.Config == nil {
		return paths
	}
	add := func(c *config.Config) {
		if c == nil {
			return
		}
		var written mcpcap.Servers
		for _, name := range c.MCPServers.Names() {
			s := c.MCPServers[name].Sandbox
			if s == nil {
				continue
			}
			if written == nil {
				if written = c.Declared(); written == nil {
					break
				}
			}
			if w, ok := written[name]; ok {
				s.AddWritten(w.Sandbox, paths)
			}
		}
		c.Sandbox.AddWritten(c.DeclaredSandbox(), paths)
	}
	add(st.Config)
	if st.Project != nil {
		add(st.Project.Config)
	}
	return paths
}
