package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// skillServers is the name of each session's capability holding the skills' own MCP servers
// (a *skill.Servers): the skills are the pool's, their servers the session's.
const skillServers = "skill-servers"

// skillServerFactory is the factory a session's skill.Servers builds the skills' own MCP servers
// with (client injection: package skill never imports mcpcap): each in the session's pool
// partition, recorded as a child of parent, the session's capability. A server declared under
// a trusted project's root, or by a skill of a trusted project's plugin, must be one the user
// trusted: one added or changed since (a hot reload) is refused with ErrNotTrusted, and
// nothing starts.
//
// What it reads of the host is st, the state the session's entries were made from, with m, the
// pool's skill manager, and userRoots, m's user's own roots: the factory runs later, from the
// skills' watcher, and a reload that changes any of them replaces the sessions' skill servers
// with ones made by a new factory (their entries' After and Decl).
func (h *Host) skillServerFactory(st *State, m *skill.Manager, userRoots map[string]bool, parent ext.Capability, partition string) skill.ChildFactory {
	allowed, plugins, p := st.Config.Extensions.AllowedCommands, st.plugins.all, st.Project
	return func(ctx context.Context, skillName string, d skill.ServerDecl) (ext.Capability, error) {
		project := p.Trusted() && (p.declares(d) && !userSkill(m, userRoots, skillName, d) || projectPluginSkill(plugins, m, skillName))
		if project {
			if err := p.permit(skillServerDecl(skillName, d)); err != nil {
				return nil, err
			}
		}
		return h.skillServer(ctx, parent, partition, skillName, d, project, allowed, skillVars(plugins, m, skillName))
	}
}

// skillVars looks up the variables of a skill's server declarations: a plugin's skill's come
// from the plugin's own (${CLAUDE_PLUGIN_ROOT} …, as its .mcp.json's), then the environment.
func skillVars(plugins *Plugins, m *skill.Manager, skillName string) func(string) (string, bool) {
	var vars map[string]string
	if s := m.Skill(skillName); s != nil && s.Namespace != "" {
		if pi := plugins.Get(s.Namespace); pi != nil {
			vars = pi.Vars()
		}
	}
	return func(name string) (string, bool) {
		if v, ok := vars[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
}

// userSkill reports whether the skill the server d belongs to was found by m under one of
// the user's own roots: then it is the user's, even when a trusted project's root holds the
// same folder (a project whose agentpool.yaml names the user's folder, or a user root inside
// the project), and the project's digests do not apply to it.
func userSkill(m *skill.Manager, userRoots map[string]bool, skillName string, d skill.ServerDecl) bool {
	s := m.Skill(skillName)
	return s != nil && userRoots[s.Root] && within(s.Root, d.Source)
}

// skillServer builds one of a skill's own MCP servers. The server is named "<skill>.<server>",
// leases its client in partition and is recorded as a registry child of parent (none when
// parent is nil); the declaration's ${VAR} references are expanded (lookup gives their
// values) and it is validated as a
// config entry would be, and allowed (extensions.allowed_commands) applies. project says the
// server is a trusted project's (its default sandbox is the project's), as trust decided it.
func (h *Host) skillServer(_ context.Context, parent ext.Capability, partition, skillName string, d skill.ServerDecl, project bool, allowed []string, lookup func(string) (string, bool)) (ext.Capability, error) {
	spec := d.Server
	key := "mcp-servers." + d.Name
	var timeoutErr error
	if v, ok := d.Extra["timeout"]; ok && v != nil {
		// A duration with a unit, as in the config file: 30 or "soon" is an error, not the default.
		str, isString := v.(string)
		t, err := time.ParseDuration(str)
		switch {
		case !isString:
			timeoutErr = fmt.Errorf("%s.timeout: %v is not a duration (write e.g. 30s or 500ms)", key, v)
		case err != nil:
			timeoutErr = fmt.Errorf("%s.timeout: %q is not a duration (e.g. 500ms, 5s, 5m)", key, str)
		default:
			spec.Timeout = t
		}
	}
	// ${VAR} as in the config (the declaration d, as written, is what trust fingerprints); a
	// relative cwd is the skill folder's, once expanded.
	spec, expandErr := expandSkillServerErr(d, spec, lookup)
	if err := errors.Join(timeoutErr, expandErr, spec.Validate(key), mcpcap.CheckCommand(spec, key, allowed, filepath.Dir(d.Source))); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", d.Source, d.Line, err)
	}
	// Raw tool names: the skill manager lists them as "<skill>__<tool>" (ext.ToolName).
	raw := ""
	spec.Prefix = &raw
	st := h.Current()
	spec = st.skillSandboxed(skillName+"."+d.Name, d.Source, spec, project)
	c, err := h.newServer(skillName+"."+d.Name, st.hiddenText(spec), partition, skillPinsOf(st, d, project))
	if err != nil {
		return nil, err
	}
	child := &skillChild{Cap: c, h: h, parent: parent}
	if parent == nil {
		return child, nil
	}
	// Record the composition edge so the registry checks cycles and depth (RFC "Composition");
	// the child forgets it when its owner closes it.
	if err := h.Registry.AddChild(parent, child); err != nil {
		_ = c.Close(context.Background())
		return nil, err
	}
	return child, nil
}

// skillChild is a skill's own MCP server as a session's skill.Servers holds it. Its composition
// edge lives as long as it does: its owner closes it when a reload drops or replaces the server, or
// at its own Close, and closing it removes the edge, so a long-running host editing skills does
// not accumulate them. Embedding keeps every interface *mcpcap.Cap implements.
type skillChild struct {
	*mcpcap.Cap
	h      *Host
	parent ext.Capability // the capability it is recorded under; nil for none
}

// Close forgets the child's composition edge, then closes the server. It is idempotent.
func (c *skillChild) Close(ctx context.Context) error {
	if c.parent == nil {
		return c.Cap.Close(ctx)
	}
	err := c.h.Registry.RemoveChild(c.parent, c)
	if errors.Is(err, ext.ErrNotFound) || errors.Is(err, ext.ErrClosed) {
		err = nil // already forgotten, or the registry is gone with every edge
	}
	return errors.Join(err, c.Cap.Close(ctx))
}

// sessionSkills is a session's skill.Servers as the host registers it: closing it (with the
// session) closes the skills' servers and then ends the session's pool partition at once, so
// the session's processes, configured session-scoped servers included, do not wait out the
// pool's idle timeout.
type sessionSkills struct {
	*skill.Servers
	pool      *connpool.Pool
	partition string
	forget    func() // drops the partition from the host's record of the session's partitions
}

// Close closes the skills' servers, then ends every client of the session's partition:
// the released ones before it returns, those another capability of the session still leases
// as soon as it releases them. It is idempotent.
func (s *sessionSkills) Close(ctx context.Context) error {
	err := errors.Join(s.Servers.Close(ctx), s.pool.ClosePartition(ctx, s.partition))
	if s.forget != nil {
		s.forget()
	}
	return err
}

// expandSkillServerErr expands spec, the declaration d of a skill's server, as the config's are
// (${VAR} from lookup), a relative cwd then taken from the skill folder.
func expandSkillServerErr(d skill.ServerDecl, spec decl.Server, lookup func(string) (string, bool)) (decl.Server, error) {
	spec, err := config.ExpandServer(spec, "mcp-servers."+d.Name, lookup)
	if spec.Cwd != "" && !filepath.IsAbs(spec.Cwd) {
		spec.Cwd = filepath.Join(filepath.Dir(d.Source), spec.Cwd)
	}
	return spec, err
}

// expandSkillServer is expandSkillServerErr for what is pinned: the declaration as far as it
// expands (an error is the server's own to report when it starts).
func expandSkillServer(d skill.ServerDecl, spec decl.Server, lookup func(string) (string, bool)) decl.Server {
	spec, _ = expandSkillServerErr(d, spec, lookup)
	return spec
}
