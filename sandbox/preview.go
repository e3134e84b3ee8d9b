package sandbox

import (
	"fmt"

	"github.com/agentpool/agentpool/decl"
)

// Preview is what Command would apply, on this kernel, to the server named server with the
// sandbox s, without starting anything: the Launch (with no TmpDir; NetNS and Launcher as
// Command would set them), or Command's refusal: an error wrapping ErrUnavailable when s is
// required and the kernel lacks what it needs, or one naming $AGENTPOOL_SANDBOX_LAUNCHER
// when that names no executable file. A nil s, or `sandbox: off`, is nil, nil: no sandbox. Commands
// and the status page show it beside a server's sandbox.
func Preview(server string, s *decl.Sandbox) (*Launch, error) {
	if s == nil || s.Off {
		return nil, nil
	}
	p := &Policy{Server: server, Network: s.Network.Mode, Required: s.IsRequired()}
	sup := Probe()
	l := &Launch{ABI: sup.LandlockABI, Missing: missing(p, sup)}
	if l.Missing != "" && p.Required {
		return nil, refusal(p, l.Missing)
	}
	l.NetNS = p.Network == decl.NetworkNone && sup.UserNS
	if l.ABI > 0 || l.NetNS {
		_, by, err := findLauncher()
		if err != nil {
			return nil, fmt.Errorf("server %q: sandbox: %w", server, err)
		}
		l.Launcher = by
	}
	return l, nil
}

// refusal is the one line with which a required policy the kernel cannot apply is refused.
func refusal(p *Policy, missing string) error {
	return fmt.Errorf("server %q: %w: the kernel lacks %s (set sandbox.required: false to start it without)", p.Server, ErrUnavailable, missing)
}
