package host

import "github.com/agentpool/agentpool/decl"

// SkillServer is one stdio server a skill declares, under the name it runs as
// ("<skill>.<server>"), with the sandbox it runs under.
type SkillServer struct {
	Name   string
	Server decl.Server
}

// SkillServers returns the stdio servers st's skills declare, in the skills' order, each with
// its sandbox filled in as a session's skill servers resolve it (the default of its origin, the
// skill's folder readable, narrowed by its own key). `agentpool compile` and the status page
// show them; none of them need be running.
func (st *State) SkillServers() []SkillServer {
	if st == nil || st.Skills == nil {
		return nil
	}
	var out []SkillServer
	for _, s := range st.Skills.Skills() {
		for _, d := range s.Servers {
			if d.Command == "" || d.URL != "" {
				continue
			}
			p := st.Project
			project := p.Trusted() && (p.declares(d) && !userSkill(st.Skills, st.userSkillRoots, s.Name, d) || projectPluginSkill(st.plugins.all, st.Skills, s.Name))
			name := s.Name + "." + d.Name
			out = append(out, SkillServer{Name: name, Server: st.skillSandboxed(name, d.Source, d.Server, project)})
		}
	}
	return out
}
