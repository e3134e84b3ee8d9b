package decl

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Network modes, the values of Network.Mode.
const (
	// NetworkAll lets the server connect anywhere (binding a port stays denied).
	NetworkAll = "all"
	// NetworkNone gives the server no network at all: a network namespace of its own.
	NetworkNone = "none"
	// NetworkList lets the server connect only to the ports of Network.Allow.
	NetworkList = "list"
)

// Sandbox profiles, the values of Sandbox.Profile: which runtime's own files a sandboxed
// server may read and execute besides what the sandbox lists (package sandbox).
const (
	ProfileAuto   = "auto" // from the command's name; the default
	ProfileNode   = "node"
	ProfilePython = "python"
	ProfileStatic = "static"
)

// Sandbox confines a stdio server (package sandbox): the sandbox key of a server, and the
// top-level default. Written as a mapping of the keys below, or as the scalar `off`, which
// turns a default off for one server (Off).
//
// Paths in Read, Write and Exec may hold ${VAR} (expanded by config), start with ~ (the home
// folder) or be relative (to the server's cwd); package sandbox resolves them.
type Sandbox struct {
	// Off is `sandbox: off`: no sandbox for this server, whatever the default.
	Off bool `yaml:"-" json:"off,omitempty"`
	// Read lists the files and folders the server may read, beyond its runtime's own.
	Read []string `yaml:"read" json:"read,omitempty" config:"expand"`
	// Write lists the files and folders the server may read and write.
	Write []string `yaml:"write" json:"write,omitempty" config:"expand"`
	// Network is what the server may connect to; the zero value means NetworkAll.
	Network Network `yaml:"network" json:"network,omitzero"`
	// Exec lists the programs the server may run beyond its own command and runtime.
	Exec []string `yaml:"exec" json:"exec,omitempty" config:"expand"`
	// Profile is ProfileAuto (or ""), ProfileNode, ProfilePython or ProfileStatic.
	Profile string `yaml:"profile" json:"profile,omitempty"`
	// Required, nil meaning true, refuses to start the server where the kernel cannot apply
	// the sandbox; false starts it with what the kernel can apply (possibly nothing).
	Required *bool `yaml:"required" json:"required,omitempty"`
	// Dropped is what the host refused of a declaration the user did not write (Within), as
	// one warning line naming the server and its file; set by the host, never read from a
	// file, and no part of what is applied.
	Dropped string `yaml:"-" json:"-"`
	// Ceiling is the sandbox Within kept a declaration the user did not write inside (nil for
	// the user's own): set by Within, never read from a file. Package sandbox applies Within
	// again when the server starts, so that a path replaced since by a symbolic link leading
	// out of the ceiling is not granted, and makes the server's cwd readable only where the
	// ceiling lets it read (Readable).
	Ceiling *Sandbox `yaml:"-" json:"-"`
}

// IsRequired reports whether the sandbox must be applied in full for the server to start.
func (s *Sandbox) IsRequired() bool { return s.Required == nil || *s.Required }

// sandboxFields is Sandbox without its methods, for decoding the mapping form.
type sandboxFields Sandbox

// UnmarshalYAML reads the mapping form or the scalar `off` (go-yaml's InterfaceUnmarshaler).
func (s *Sandbox) UnmarshalYAML(unmarshal func(any) error) error {
	var word string
	if unmarshal(&word) == nil {
		return s.setWord(word)
	}
	var f sandboxFields
	if err := unmarshal(&f); err != nil {
		return err
	}
	*s = Sandbox(f)
	return nil
}

// UnmarshalJSON reads the object form or the string "off".
func (s *Sandbox) UnmarshalJSON(b []byte) error {
	var word string
	if json.Unmarshal(b, &word) == nil {
		return s.setWord(word)
	}
	var f sandboxFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*s = Sandbox(f)
	return nil
}

func (s *Sandbox) setWord(word string) error {
	if word != "off" {
		return fmt.Errorf("%q is neither off nor a mapping of read, write, network, exec, profile, required", word)
	}
	*s = Sandbox{Off: true}
	return nil
}

// Network is the sandbox's network key: `none`, `all`, or a list of "host:port" a server may
// connect to. The kernel's rules (Landlock) are per TCP port: a listed port is open on every
// host; the host documents intent.
type Network struct {
	// Mode is NetworkAll, NetworkNone or NetworkList; "" means NetworkAll.
	Mode string
	// Allow is the list of NetworkList.
	Allow []string
}

// UnmarshalYAML reads `none`, `all` or a list of "host:port".
func (n *Network) UnmarshalYAML(unmarshal func(any) error) error {
	var word string
	if unmarshal(&word) == nil {
		*n = Network{Mode: word}
		return nil
	}
	var list []string
	if err := unmarshal(&list); err != nil {
		return errors.New(`network must be none, all or a list of "host:port"`)
	}
	*n = Network{Mode: NetworkList, Allow: list}
	return nil
}

// UnmarshalJSON reads "none", "all" or an array of "host:port".
func (n *Network) UnmarshalJSON(b []byte) error {
	return n.UnmarshalYAML(func(v any) error { return json.Unmarshal(b, v) })
}

// MarshalJSON writes the form UnmarshalJSON reads. A Network that is neither (a mode with
// a list: not valid) is written as {"mode", "allow"}, so that nothing of it is lost.
func (n Network) MarshalJSON() ([]byte, error) {
	switch {
	case n.Mode == NetworkList:
		return json.Marshal(n.Allow)
	case len(n.Allow) == 0:
		return json.Marshal(n.Mode)
	}
	return json.Marshal(struct {
		Mode  string   `json:"mode"`
		Allow []string `json:"allow"`
	}{n.Mode, n.Allow})
}

// Ports returns the TCP ports of a NetworkList's entries, in order; entries that do not parse
// (Validate reports them) are left out.
func (n Network) Ports() []uint16 {
	var ports []uint16
	for _, a := range n.Allow {
		if p, err := hostPort(a); err == nil {
			ports = append(ports, p)
		}
	}
	return ports
}

func hostPort(a string) (uint16, error) {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return 0, errors.New("want host:port")
	}
	if host == "" {
		return 0, errors.New("no host (write 0.0.0.0 or a name for any)")
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return uint16(p), nil
}

// Validate returns every problem of s, each keyed under key ("mcp_servers.x.sandbox").
func (s *Sandbox) Validate(key string) error {
	var errs []error
	add := func(at, format string, a ...any) { errs = append(errs, keyErrorf(at, format, a...)) }
	for _, list := range []struct {
		key   string
		paths []string
	}{{"read", s.Read}, {"write", s.Write}, {"exec", s.Exec}} {
		for i, p := range list.paths {
			at := fmt.Sprintf("%s.%s[%d]", key, list.key, i)
			switch {
			case strings.TrimSpace(p) == "":
				add(at, "empty path")
			case strings.ContainsRune(p, 0):
				add(at, "path contains a NUL byte")
			}
		}
	}
	switch s.Network.Mode {
	case "", NetworkAll, NetworkNone:
	case NetworkList:
		if len(s.Network.Allow) == 0 {
			add(key+".network", `an empty list allows nothing: write none`)
		}
		for i, a := range s.Network.Allow {
			if _, err := hostPort(a); err != nil {
				add(fmt.Sprintf("%s.network[%d]", key, i), "%q: %v", a, err)
			}
		}
	default:
		add(key+".network", `unknown network %q (want none, all or a list of "host:port")`, s.Network.Mode)
	}
	switch s.Profile {
	case "", ProfileAuto, ProfileNode, ProfilePython, ProfileStatic:
	default:
		add(key+".profile", "unknown profile %q (want auto, node, python or static)", s.Profile)
	}
	return errors.Join(errs...)
}
