package decl

import (
	"slices"
	"strings"
)

// String describes s on one line, for the commands and the status page that show what a
// server is confined to: "read ~/projects; write none; network none; profile auto". A nil
// Sandbox or `sandbox: off` is "off". Paths are shown as written (before ${VAR} expansion
// when s is a declaration as written).
func (s *Sandbox) String() string {
	if s == nil || s.Off {
		return "off"
	}
	list := func(paths []string) string {
		if len(paths) == 0 {
			return "none"
		}
		return strings.Join(paths, ", ")
	}
	network := s.Network.Mode
	switch network {
	case "":
		network = NetworkAll
	case NetworkList:
		network = list(s.Network.Allow)
	}
	parts := []string{"read " + list(s.Read), "write " + list(s.Write), "network " + network}
	if len(s.Exec) > 0 {
		parts = append(parts, "exec "+list(s.Exec))
	}
	profile := s.Profile
	if profile == "" {
		profile = ProfileAuto
	}
	parts = append(parts, "profile "+profile)
	if !s.IsRequired() {
		parts = append(parts, "not required")
	}
	return strings.Join(parts, "; ")
}

// AddWritten records in paths, for each path of s, a sandbox as its config's ${VAR} expansion
// left it, that differs from the same entry of written, the same sandbox as written: the
// expanded path → the path as written. Lists of different lengths (not the same sandbox) add
// nothing.
func (s *Sandbox) AddWritten(written *Sandbox, paths map[string]string) {
	if s == nil || written == nil {
		return
	}
	for _, l := range [][2][]string{{s.Read, written.Read}, {s.Write, written.Write}, {s.Exec, written.Exec}} {
		if len(l[0]) != len(l[1]) {
			continue
		}
		for i, p := range l[0] {
			if w := l[1][i]; w != p {
				if _, ok := paths[p]; !ok {
					paths[p] = w
				}
			}
		}
	}
}

// Shown returns s with each path that paths maps (AddWritten) replaced by its form as written,
// ${VAR} references unexpanded, for showing; s itself when nothing is replaced.
func (s *Sandbox) Shown(paths map[string]string) *Sandbox {
	if s == nil || len(paths) == 0 {
		return s
	}
	changed := false
	swap := func(list []string) []string {
		var out []string
		for i, p := range list {
			if w, ok := paths[p]; ok {
				if out == nil {
					out = slices.Clone(list)
				}
				out[i], changed = w, true
			}
		}
		if out == nil {
			return list
		}
		return out
	}
	c := *s
	c.Read, c.Write, c.Exec = swap(s.Read), swap(s.Write), swap(s.Exec)
	if !changed {
		return s
	}
	return &c
}
