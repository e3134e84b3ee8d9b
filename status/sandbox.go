package status

import (
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/sandbox"
)

// Sandbox is one stdio server's sandbox as `agentpool compile` and the status page show it:
// what the server may reach, and what this kernel applies of it.
type Sandbox struct {
	// Server is the server's name.
	Server string `json:"server"`
	// Sandbox is the server's sandbox; nil: it runs unconfined.
	Sandbox *decl.Sandbox `json:"sandbox"`
	// Text is Sandbox on one line (decl.Sandbox.String; "off" when unconfined).
	Text string `json:"text"`
	// ABI is the Landlock ABI level the rules are applied at; 0: none.
	ABI int `json:"landlock_abi"`
	// Applied says what is applied ("landlock ABI 7, no network") and what the kernel lacks of
	// a sandbox that is not required ("no landlock, lacking Landlock (the kernel has none)"
	// when nothing is applied); "" for no sandbox or a refused one.
	Applied string `json:"applied,omitempty"`
	// Refused is the one line saying why the server does not start (the kernel lacks what its
	// required sandbox needs), or "".
	Refused string `json:"refused,omitempty"`
	// Dropped is the warning line naming what the host refused of the sandbox a declaration the
	// user did not write asked for (decl.Sandbox.Dropped), or "".
	Dropped string `json:"dropped,omitempty"`
}

// SandboxOf describes the sandbox s of the stdio server named server (nil or off: none).
func SandboxOf(server string, s *decl.Sandbox) Sandbox {
	if s != nil && s.Off {
		s = nil
	}
	out := Sandbox{Server: server, Sandbox: s, Text: s.String()}
	if s != nil {
		out.Dropped = s.Dropped
	}
	l, err := sandbox.Preview(server, s)
	switch {
	case err != nil:
		out.Refused = err.Error()
	case l != nil:
		out.ABI, out.Applied = l.ABI, l.String()
	}
	return out
}

// Sandboxes describes the sandbox of each stdio server among caps, in their order; servers
// reached over HTTP have none and are left out.
func Sandboxes(caps []*mcpcap.Cap) []Sandbox {
	out := []Sandbox{}
	for _, c := range caps {
		if b := stdioSandbox(c.Status().Name, c.Config().Server.Server); b != nil {
			out = append(out, *b)
		}
	}
	return out
}

// HostSandboxes describes the sandbox of each stdio server h shows at scope (the servers
// `agentpool compile` compiles), in registration order, then of each stdio server the skills
// declare (host.State.SkillServers), whether or not a session runs it. Paths are shown as
// declared: a ${VAR} reference of the config is shown unexpanded.
func HostSandboxes(h *host.Host, scope ext.Scope) []Sandbox {
	var caps []*mcpcap.Cap
	for _, c := range h.Registry.Visible(scope) {
		if mc, ok := c.(*mcpcap.Cap); ok {
			caps = append(caps, mc)
		}
	}
	out := Sandboxes(caps)
	shown := map[string]bool{}
	for _, b := range out {
		shown[b.Server] = true
	}
	st := h.Current()
	for _, s := range st.SkillServers() {
		if b := stdioSandbox(s.Name, s.Server); b != nil && !shown[s.Name] {
			out = append(out, *b)
		}
	}
	paths := st.WrittenSandboxPaths()
	for i := range out {
		out[i].asWritten(paths)
	}
	return out
}

// asWritten shows b's paths as declared, ${VAR} references unexpanded where paths maps them
// (host.State.WrittenSandboxPaths).
func (b *Sandbox) asWritten(paths map[string]string) {
	if b != nil && b.Sandbox != nil {
		b.Sandbox = b.Sandbox.Shown(paths)
		b.Text = b.Sandbox.String()
	}
}

// stdioSandbox describes the sandbox of srv, named name, when it is a stdio server; nil
// otherwise.
func stdioSandbox(name string, srv decl.Server) *Sandbox {
	if srv.Command == "" || srv.URL != "" {
		return nil
	}
	b := SandboxOf(name, srv.Sandbox)
	return &b
}
