package host

import (
	"slices"

	"github.com/agentpool/agentpool/decl"
)

// sandboxed returns spec, of the server name that st's config declares, with the sandbox it
// runs under (package sandbox): its own sandbox key (none when off), else the default of where
// it is declared. The user's own servers get the config's top-level sandbox (none when unset
// or off); a plugin's the same with the plugin's folder readable; a trusted project's the
// project folder read-write (not required) and nothing else of the home folder, network
// allowed, unless the top-level sandbox is off. HTTP servers have none.
func (st *State) sandboxed(name string, spec decl.Server) decl.Server {
	switch {
	case st == nil || st.Config == nil:
		return spec
	case st.projectServers[name] && st.Project != nil:
		return st.withSandbox(spec, projectSandbox(st.Project.Dir))
	case st.plugins.servers[name] != "":
		if pi := st.plugins.all.Get(st.plugins.servers[name]); pi != nil && pi.Plugin != nil {
			return st.withSandbox(spec, folderSandbox(st.Config.Sandbox, pi.Dir))
		}
	}
	return st.withSandbox(spec, st.Config.Sandbox)
}

// userSandboxed returns spec, a server of the user's own (an agent's), with its sandbox: its
// own key, else the config's top-level default.
func (st *State) userSandboxed(spec decl.Server) decl.Server {
	if st == nil || st.Config == nil {
		return spec
	}
	return st.withSandbox(spec, st.Config.Sandbox)
}

// skillSandboxed returns spec, a skill's own server whose skill lives in folder, with its
// sandbox: its own key, else the default (the project's for a trusted project's skill, else
// the config's) with the skill's folder readable.
func (st *State) skillSandboxed(spec decl.Server, folder string, project bool) decl.Server {
	if st == nil || st.Config == nil {
		return spec
	}
	def := st.Config.Sandbox
	if project && st.Project != nil {
		def = projectSandbox(st.Project.Dir)
	}
	return st.withSandbox(spec, folderSandbox(def, folder))
}

// withSandbox returns spec with def as its sandbox when it has no sandbox key and is a stdio
// server; `sandbox: off` (its own, or the config's top-level) leaves none.
func (st *State) withSandbox(spec decl.Server, def *decl.Sandbox) decl.Server {
	if spec.Type != decl.TypeStdio && spec.Command == "" {
		return spec
	}
	if spec.Sandbox == nil && !(st.Config.Sandbox != nil && st.Config.Sandbox.Off) && def != nil && !def.Off {
		spec.Sandbox = def
	}
	if spec.Sandbox != nil && spec.Sandbox.Off {
		spec.Sandbox = nil
	}
	return spec
}

// projectSandbox is a trusted project's servers' default: the project folder read-write (and
// its programs executable). It is not required: where the kernel cannot apply it, the
// project's servers run as they did without it, since the user did not ask for it.
func projectSandbox(dir string) *decl.Sandbox {
	no := false
	return &decl.Sandbox{Write: []string{dir}, Exec: []string{dir}, Required: &no}
}

// folderSandbox returns def with folder readable; nil when def is nil or off.
func folderSandbox(def *decl.Sandbox, folder string) *decl.Sandbox {
	if def == nil || def.Off || folder == "" {
		return def
	}
	s := *def
	s.Read = append(slices.Clone(def.Read), folder)
	return &s
}
