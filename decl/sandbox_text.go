package decl

import (
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
