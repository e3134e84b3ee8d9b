package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentpool/agentpool/decl"
)

// Policy is a resolved sandbox: what one server's process may read, write, execute and
// connect to. Paths are absolute; a path that does not exist when the server starts is
// skipped. The zero Policy allows nothing but what every policy allows (see the package doc).
type Policy struct {
	// Server names the server, for messages.
	Server string `json:"server,omitempty"`
	// Read lists files and folders the process may read.
	Read []string `json:"read,omitempty"`
	// Write lists files and folders the process may read and write (create, remove, rename).
	Write []string `json:"write,omitempty"`
	// Exec lists files and folders whose programs the process may execute (and read).
	Exec []string `json:"exec,omitempty"`
	// Network is decl.NetworkAll (or ""), decl.NetworkNone or decl.NetworkList.
	Network string `json:"network,omitempty"`
	// Ports are the TCP ports a NetworkList lets the process connect to.
	Ports []uint16 `json:"ports,omitempty"`
	// Required refuses to start where the kernel cannot apply the policy (see Command).
	Required bool `json:"required,omitempty"`
}

// Resolve returns the policy of s for cmd, a stdio server's command as exec.Command built it
// (Path looked up, Dir its cwd, Env its environment); server names it. s must be valid
// (decl.Sandbox.Validate) and not Off. Paths written in s: ~ and ~/… are the home folder (of
// this process), a relative path is against cmd.Dir (or this process's folder when empty).
// The server's own cwd is readable, under a Ceiling only where the ceiling lets it read. A
// sandbox with a Ceiling is kept within it again (decl.Sandbox.Within), its paths resolved as
// they are now: a path that has become a symbolic link leading out of the ceiling since the
// host checked it is not granted.
func Resolve(server string, s *decl.Sandbox, cmd *exec.Cmd) *Policy {
	home, _ := os.UserHomeDir()
	cwd := cmd.Dir
	if cwd == "" {
		cwd, _ = os.Getwd()
	} else if !filepath.IsAbs(cwd) {
		cwd, _ = filepath.Abs(cwd)
	}
	if s.Ceiling != nil {
		s, _ = s.Within(s.Ceiling, home, cwd)
	}
	abs := func(paths []string) []string {
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			out = append(out, absPath(p, home, cwd))
		}
		return out
	}
	p := &Policy{
		Server:   server,
		Read:     abs(s.Read),
		Write:    abs(s.Write),
		Exec:     abs(s.Exec),
		Network:  s.Network.Mode,
		Ports:    s.Network.Ports(),
		Required: s.IsRequired(),
	}
	if cmd.Dir != "" && (s.Ceiling == nil || s.Ceiling.Readable(cwd, home, cwd)) {
		p.Read = append(p.Read, cwd)
	}
	t := target{path: commandPath(cmd, cwd), args: cmd.Args, cwd: cwd, home: home, env: cmd.Env}
	p.add(base(t))
	p.add(profileOf(s.Profile, t)(t))
	return p
}

// add appends g's paths to p's.
func (p *Policy) add(g grants) {
	p.Read = append(p.Read, g.read...)
	p.Write = append(p.Write, g.write...)
	p.Exec = append(p.Exec, g.exec...)
}

// absPath resolves a path as written in a sandbox declaration.
func absPath(p, home, cwd string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// commandPath is the absolute path of cmd's program ("" when it could not be found).
func commandPath(cmd *exec.Cmd, cwd string) string {
	if cmd.Err != nil || cmd.Path == "" {
		return ""
	}
	if filepath.IsAbs(cmd.Path) {
		return cmd.Path
	}
	return filepath.Join(cwd, cmd.Path)
}
