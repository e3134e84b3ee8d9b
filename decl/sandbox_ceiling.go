package decl

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// Within returns s, the sandbox a declaration the user did not write asks for (a trusted
// project's, a plugin's or a skill's server), kept inside ceiling, the sandbox the user's
// config (or the built-in default of the declaration's origin) gives that server, and what s
// asked for beyond ceiling, each as written ("read ~/.ssh", "network all", "required: false",
// "sandbox: off"), in that order; s and ceiling are not changed.
//
// A nil or off ceiling is no ceiling: s is returned as it is (nil for `sandbox: off`). A nil s
// gets ceiling. Otherwise s may only narrow ceiling: `sandbox: off` is refused (ceiling
// instead); a read path must lie beneath one of ceiling's read, write or exec paths, a write
// path beneath one of its write paths, an exec path beneath one of its exec paths (others are
// dropped); a network wider than ceiling's is refused (ceiling's instead; a list keeps the
// entries whose port ceiling's list has, and is none when it keeps nothing); required: false
// under a required ceiling is refused; a profile other than ceiling's, when ceiling names one,
// is refused. A network or profile s leaves out is ceiling's, and not refused. Paths are
// compared resolved: ~ is home, a relative path is against cwd, and
// symbolic links of existing paths are followed. Under a ceiling the result records it
// (Ceiling).
func (s *Sandbox) Within(ceiling *Sandbox, home, cwd string) (*Sandbox, []string) {
	switch {
	case ceiling == nil || ceiling.Off:
		if s != nil && s.Off {
			return nil, nil
		}
		return s, nil
	case s == nil || s.Off:
		c := *ceiling
		c.Ceiling = ceiling
		if s == nil {
			return &c, nil
		}
		return &c, []string{"sandbox: off"}
	}
	var refused []string
	resolve := func(paths []string) []string {
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			out = append(out, resolvePath(p, home, cwd))
		}
		return out
	}
	readable := resolve(slices.Concat(ceiling.Read, ceiling.Write, ceiling.Exec))
	keep := func(key string, paths []string, roots []string) []string {
		var out []string
		for _, p := range paths {
			if beneathAny(resolvePath(p, home, cwd), roots) {
				out = append(out, p)
			} else {
				refused = append(refused, key+" "+p)
			}
		}
		return out
	}
	out := *s
	out.Ceiling = ceiling
	out.Read = keep("read", s.Read, readable)
	out.Write = keep("write", s.Write, resolve(ceiling.Write))
	out.Exec = keep("exec", s.Exec, resolve(ceiling.Exec))
	out.Network = ceiling.Network
	if s.Network.Mode != "" {
		out.Network = s.Network.within(ceiling.Network, &refused)
	}
	if ceiling.IsRequired() && !s.IsRequired() {
		refused = append(refused, "required: false")
		out.Required = nil
	}
	if p := ceiling.Profile; p != "" && p != ProfileAuto && s.Profile != p {
		if s.Profile != "" {
			refused = append(refused, "profile "+s.Profile)
		}
		out.Profile = p
	}
	return &out, refused
}

// Readable reports whether path, resolved as Within resolves paths, is one of s's read, write
// or exec paths or lies beneath one of them.
func (s *Sandbox) Readable(path, home, cwd string) bool {
	var roots []string
	for _, r := range slices.Concat(s.Read, s.Write, s.Exec) {
		roots = append(roots, resolvePath(r, home, cwd))
	}
	return beneathAny(resolvePath(path, home, cwd), roots)
}

// within returns n kept inside ceiling, adding what it refuses to refused (see Within).
func (n Network) within(ceiling Network, refused *[]string) Network {
	switch {
	case ceiling.Mode == "" || ceiling.Mode == NetworkAll || n.Mode == NetworkNone:
		return n
	case ceiling.Mode == NetworkNone || n.Mode != NetworkList:
		*refused = append(*refused, "network "+cmp.Or(n.Mode, NetworkAll))
		return ceiling
	}
	ports := ceiling.Ports()
	out := Network{Mode: NetworkList}
	for _, a := range n.Allow {
		if p, err := hostPort(a); err == nil && slices.Contains(ports, p) {
			out.Allow = append(out.Allow, a)
		} else {
			*refused = append(*refused, "network "+a)
		}
	}
	if len(out.Allow) == 0 {
		return Network{Mode: NetworkNone}
	}
	return out
}

// resolvePath is p as a sandbox resolves it (~ is home, relative is against cwd), with the
// symbolic links of its longest existing part followed.
func resolvePath(p, home, cwd string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	for dir, rest := p, ""; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		dir, rest = parent, filepath.Join(filepath.Base(dir), rest)
	}
}

// beneathAny reports whether path is one of roots or lies beneath one of them.
func beneathAny(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || r == "/" || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}
