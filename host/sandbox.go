package host

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/decl"
)

// sandboxed returns spec, of the server name that st's config declares, with the sandbox it
// runs under (package sandbox): its own sandbox key (none when off), else the default of where
// it is declared. The user's own servers get the config's top-level sandbox (none when unset
// or off); a plugin's the same (a trusted project's plugin's: the project's) with the plugin's
// folder readable; a trusted project's the
// project folder read-write (not required) and nothing else of the home folder, network
// allowed, unless the top-level sandbox is off. A plugin's or a project's own sandbox key may
// only narrow that default (foreignSandboxed). HTTP servers have none.
func (st *State) sandboxed(name string, spec decl.Server) decl.Server {
	switch {
	case st == nil || st.Config == nil:
		return spec
	case st.projectServers[name] && st.Project != nil:
		file := ""
		if st.Project.Config != nil {
			file = st.Project.Config.Path
		}
		return st.foreignSandboxed(name, file, spec, projectSandbox(st.Project.Dir))
	case st.plugins.servers[name] != "":
		if pi := st.plugins.all.Get(st.plugins.servers[name]); pi != nil && pi.Plugin != nil {
			def := st.Config.Sandbox
			if pi.Source == projectPluginSource && st.Project != nil {
				def = projectSandbox(st.Project.Dir)
			}
			return st.foreignSandboxed(name, pi.Sources[name], spec, folderSandbox(def, pi.Dir))
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

// skillSandboxed returns spec, the server name of a skill whose SKILL.md is file, with its
// sandbox: the default (the project's for a trusted project's skill, else the config's) with
// the skill's folder readable, narrowed by its own key (foreignSandboxed).
func (st *State) skillSandboxed(name, file string, spec decl.Server, project bool) decl.Server {
	if st == nil || st.Config == nil {
		return spec
	}
	def := st.Config.Sandbox
	if project && st.Project != nil {
		def = projectSandbox(st.Project.Dir)
	}
	return st.foreignSandboxed(name, file, spec, folderSandbox(def, filepath.Dir(file)))
}

// foreignSandboxed returns spec, the stdio server name that file declares and the user did not
// write, with its sandbox: ceiling (the default the user's config, or the built-in one, gives
// it; none when the top-level sandbox is off) narrowed by spec's own key, which may not remove
// or widen it (decl.Sandbox.Within). What it refuses is the sandbox's Dropped line, its paths
// as the config declares them, ${VAR} unexpanded (WrittenSandboxPaths).
func (st *State) foreignSandboxed(name, file string, spec decl.Server, ceiling *decl.Sandbox) decl.Server {
	if spec.Type != decl.TypeStdio && spec.Command == "" {
		return spec
	}
	if st.Config.Sandbox != nil && st.Config.Sandbox.Off {
		ceiling = nil
	}
	home, _ := os.UserHomeDir()
	cwd := spec.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	box, refused := spec.Sandbox.Within(ceiling, home, cwd)
	if len(refused) > 0 {
		written := st.WrittenSandboxPaths()
		for i, r := range refused {
			if key, p, ok := strings.Cut(r, " "); ok && (key == "read" || key == "write" || key == "exec") {
				if w, ok := written[p]; ok {
					refused[i] = key + " " + w
				}
			}
		}
		c := *box
		c.Dropped = fmt.Sprintf("server %q (%s): sandbox kept within the default your config gives it: refused %s", name, file, strings.Join(refused, ", "))
		box = &c
	}
	spec.Sandbox = box
	return spec
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
