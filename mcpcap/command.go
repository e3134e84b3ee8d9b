package mcpcap

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
)

// CheckCommand applies the extensions.allowed_commands policy to the stdio server s, reporting a
// problem keyed key.command. root, when not empty, is the skill folder that declared the
// server: a relative command must then resolve inside it (after its cwd and symlinks), allowed
// or not. With allowed nil (no allowed_commands key) any command is allowed (and only that
// confinement is checked); an empty, non-nil list (`allowed_commands: []`) allows none, as an
// explicit empty allowed-tools allows no tool.
//
// A command and an allow-list entry match when they resolve to the same executable: a bare
// name is looked up in agentpool's PATH (as exec does when it starts the server, whatever PATH
// the server's env sets), a relative path is taken from the server's cwd, and symlinks are
// resolved (a bare name that is itself an entry always matches: the same lookup, even when
// nothing is installed under it yet). So `command: ./node`, a skill's own script, is not the `node` of allowed_commands
// [node]; to allow it, list its path. Args and env are not checked (see the package doc): an
// allowed interpreter runs what its args say.
func CheckCommand(s decl.Server, key string, allowed []string, root string) error {
	if s.Command == "" || (s.Type != "" && s.Type != connpool.TypeStdio) || (allowed == nil && root == "") {
		return nil
	}
	at := key + ".command"
	if allowed != nil && len(allowed) == 0 {
		return keyErrorf(at, "command %q is refused: extensions.allowed_commands is empty, so no stdio server may start", s.Command)
	}
	relative := strings.Contains(s.Command, "/") && !filepath.IsAbs(s.Command)
	if relative && root != "" {
		if err := confined(s.Command, s.Cwd, root); err != nil {
			return keyErrorf(at, "%v", err)
		}
	}
	if allowed == nil {
		return nil
	}
	if !strings.Contains(s.Command, "/") && slices.Contains(allowed, s.Command) {
		// The same name is looked up in the same PATH when the server starts: it is the
		// entry's executable, installed or not (a missing one fails to start, as without a list).
		return nil
	}
	real, err := resolveCommand(s.Command, s.Cwd)
	if err != nil {
		return keyErrorf(at, "command %q is not in extensions.allowed_commands %v: %v", s.Command, allowed, err)
	}
	var list []string
	for _, a := range allowed {
		r, err := resolveCommand(a, "")
		if err != nil {
			list = append(list, a+" (not found)")
			continue
		}
		if r == real {
			return nil
		}
		list = append(list, r)
	}
	return keyErrorf(at, "command %q is not in extensions.allowed_commands %v: it resolves to %s, the list to %v",
		s.Command, allowed, real, list)
}

// resolveCommand returns the real path of the executable command names, as exec would start
// it from cwd: a name without a slash is looked up in PATH; a relative path is taken from cwd
// (the working directory when cwd is empty); symlinks are resolved.
func resolveCommand(command, cwd string) (string, error) {
	p := command
	if !strings.Contains(command, "/") {
		found, err := exec.LookPath(command)
		if err != nil {
			return "", fmt.Errorf("%q not found in PATH", command)
		}
		p = found
	} else if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("cannot resolve %s: %w", p, err)
	}
	return real, nil
}

// confined checks that the relative command, taken from cwd, stays inside root: as written
// (no .., no cwd elsewhere) and, when it exists, after its symlinks are resolved. A command
// that does not exist yet passes; starting it fails on its own.
func confined(command, cwd, root string) error {
	if cwd == "" {
		cwd = root
	}
	p := filepath.Join(cwd, command)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	if !within(p, root) && !within(p, realRoot) {
		return fmt.Errorf("command %q resolves to %s, outside its skill folder %s", command, p, root)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && !within(real, realRoot) {
		return fmt.Errorf("command %q resolves to %s, outside its skill folder %s", command, real, root)
	}
	return nil
}

// within reports whether path p is dir or inside it (lexically).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
