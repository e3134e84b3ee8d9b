package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// skillServer is the skill manager's injected factory for a skill's own MCP servers (client
// injection: package skill never imports mcpcap). The server is named "<skill>.<server>",
// shares the pool and is recorded as a child of the skill manager in the registry; the
// declaration is validated as a config entry would be, and extensions.allowed_commands
// applies.
func (h *Host) skillServer(_ context.Context, skillName string, decl skill.ServerDecl) (ext.Capability, error) {
	spec := mcpcap.ServerSpec{
		Type: decl.Type, Command: decl.Command, Args: decl.Args, Env: decl.Env, Cwd: decl.Cwd,
		URL: decl.URL, Headers: decl.Headers,
	}
	key := "mcp-servers." + decl.Name
	var timeoutErr error
	if v, ok := decl.Extra["timeout"]; ok && v != nil {
		// A duration with a unit, as in the config file: 30 or "soon" is an error, not the default.
		str, isString := v.(string)
		d, err := time.ParseDuration(str)
		switch {
		case !isString:
			timeoutErr = fmt.Errorf("%s.timeout: %v is not a duration (write e.g. 30s or 500ms)", key, v)
		case err != nil:
			timeoutErr = fmt.Errorf("%s.timeout: %q is not a duration (e.g. 500ms, 5s, 5m)", key, str)
		default:
			spec.Timeout = d
		}
	}
	if err := errors.Join(timeoutErr, spec.Validate(key), spec.CheckCommand(key, h.Config.Extensions.AllowedCommands)); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", decl.Source, decl.Line, err)
	}
	// Raw tool names: the skill manager lists them as "<skill>__<tool>" (ext.ToolName).
	raw := ""
	spec.Prefix = &raw
	c, err := h.newServer(skillName+"."+decl.Name, spec, connpool.GlobalPartition)
	if err != nil {
		return nil, err
	}
	// Record the composition edge so the registry checks cycles and depth (RFC "Composition");
	// the child forgets it when the skill manager closes it.
	child := &skillChild{Cap: c, h: h}
	if err := h.Registry.AddChild(h.Skills, child); err != nil {
		_ = c.Close(context.Background())
		return nil, err
	}
	return child, nil
}

// skillChild is a skill's own MCP server as the skill manager holds it. Its composition edge
// lives as long as it does: the manager closes it when a reload drops or replaces the server, or
// at its own Close, and closing it removes the edge, so a long-running host editing skills does
// not accumulate them. Embedding keeps every interface *mcpcap.Cap implements.
type skillChild struct {
	*mcpcap.Cap
	h *Host
}

// Close forgets the child's composition edge, then closes the server. It is idempotent.
func (c *skillChild) Close(ctx context.Context) error {
	err := c.h.Registry.RemoveChild(c.h.Skills, c)
	if errors.Is(err, ext.ErrNotFound) || errors.Is(err, ext.ErrClosed) {
		err = nil // already forgotten, or the registry is gone with every edge
	}
	return errors.Join(err, c.Cap.Close(ctx))
}
