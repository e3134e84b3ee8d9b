package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/sandbox/launch"
)

// ErrUnavailable is wrapped by Command's error when the kernel lacks what a required policy
// needs.
var ErrUnavailable = errors.New("sandbox unavailable")

// LauncherEnv names the environment variable that gives the launcher's path (see Command).
const LauncherEnv = "AGENTPOOL_SANDBOX_LAUNCHER"

// The ways a sandboxed command starts (Launch.Launcher).
const (
	// ByLauncher: through the agentpool-sandbox launcher, a program that does nothing else.
	ByLauncher = "agentpool-sandbox"
	// ByReExec: through this program's own executable re-executed (Main), the fallback, whose
	// start costs this program's initialisation.
	ByReExec = "re-exec"
)

// Launch is a command rewritten by Command: what is applied to it.
type Launch struct {
	// ABI is the Landlock ABI level the rules are applied at; 0: no Landlock rules.
	ABI int
	// NetNS reports a network namespace of the server's own (network: none).
	NetNS bool
	// Missing says what the policy needed that the kernel lacks ("" when nothing): applied
	// without it, as the policy was not Required.
	Missing string
	// TmpDir is the server's private temporary folder (its TMPDIR).
	TmpDir string
	// Launcher says what applies the rules: ByLauncher or ByReExec; "" when nothing is
	// applied (the command runs as it is).
	Launcher string

	rules *os.File // the Landlock rule set the launcher inherits; nil: none, or released
}

// Started releases what only the start needed: this process's descriptor of the rule set,
// which the command inherits. Call it once the command has started (or failed to); it is
// idempotent, and Cleanup does it too.
func (l *Launch) Started() {
	if l.rules != nil {
		l.rules.Close()
		l.rules = nil
	}
}

// Cleanup releases what Started does and removes the private temporary folder. Call it once
// the server has exited; it is idempotent.
func (l *Launch) Cleanup() {
	l.Started()
	if l.TmpDir != "" {
		_ = os.RemoveAll(l.TmpDir)
	}
}

// String describes what is applied, for status lines: "landlock ABI 7, no network".
func (l *Launch) String() string {
	var parts []string
	if l.ABI > 0 {
		parts = append(parts, fmt.Sprintf("landlock ABI %d", l.ABI))
	} else {
		parts = append(parts, "no landlock")
	}
	if l.NetNS {
		parts = append(parts, "no network")
	} else if l.ABI > 0 && l.ABI < 4 {
		parts = append(parts, fmt.Sprintf("bind not denied: Landlock ABI %d < 4", l.ABI))
	}
	if l.Missing != "" {
		parts = append(parts, "lacking "+l.Missing)
	}
	if l.Launcher == ByReExec {
		parts = append(parts, "started by re-executing agentpool (no agentpool-sandbox launcher found: slower start)")
	}
	return strings.Join(parts, ", ")
}

// missing says what p needs that s lacks, or "".
func missing(p *Policy, s Support) string {
	var m []string
	switch {
	case s.LandlockABI < 1:
		m = append(m, "Landlock (the kernel has none)")
	case p.Network == decl.NetworkList && s.LandlockABI < 4:
		m = append(m, fmt.Sprintf("Landlock TCP rules (network list not enforced: Landlock ABI %d < 4)", s.LandlockABI))
	}
	if p.Network == decl.NetworkNone && !s.UserNS {
		m = append(m, "unprivileged user and network namespaces for network: none")
	}
	return strings.Join(m, " and ")
}

// Command rewrites cmd, built by exec.Command with its Dir, Env, ExtraFiles and SysProcAttr
// set (or nil), to start through a launcher, which applies p and then executes the command in its
// place (see the package doc). The launcher is the program $AGENTPOOL_SANDBOX_LAUNCHER names
// when it is set and not empty (a relative path from this program's working folder; an error
// wrapping fs.ErrNotExist when that is not an executable file), else agentpool-sandbox in
// the folder of this program's executable when it and the link that names it (if one does)
// are this user's or root's and no one else may write it, else this program's executable
// itself, which must call Main first thing (Launch.Launcher says
// which). cmd must not have been started. Command builds the Landlock rule set in this
// process (which it does not restrict) and appends its descriptor to cmd.ExtraFiles, for the
// launcher to bind to itself and close before the server runs (Launch.Started closes this
// process's copy). It sets TMPDIR in cmd.Env to a new private folder (Launch.Cleanup removes
// it) and, for network none, either asks the launcher to make the user and network namespaces
// (the assembly entry, which can, as the first thing it does) or sets their flags in
// cmd.SysProcAttr; the caller's other attributes (Setpgid, Pdeathsig) stay.
//
// When the kernel lacks what p needs and p.Required, Command changes nothing and returns an
// error wrapping ErrUnavailable, one line naming the server, what is missing and
// `required: false`. When p is not required and nothing of it can be applied (no Landlock,
// and no namespace to make), Command changes nothing either and says so in Launch.Missing. A command that cannot be found is cmd.Err, or an error wrapping
// fs.ErrNotExist: starting again cannot help.
func Command(p *Policy, cmd *exec.Cmd) (*Launch, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	sup := Probe()
	l := &Launch{ABI: sup.LandlockABI, Missing: missing(p, sup)}
	if l.Missing != "" && p.Required {
		return nil, refusal(p, l.Missing)
	}
	netNS := p.Network == decl.NetworkNone && sup.UserNS
	if l.ABI == 0 && !netNS {
		return l, nil // nothing to apply: the command runs as it is
	}
	path := commandPath(cmd, cmd.Dir)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("server %q: command %s: %w", p.Server, path, fs.ErrNotExist)
	}
	launcher, by, err := findLauncher()
	if err != nil {
		return nil, fmt.Errorf("server %q: sandbox: %w", p.Server, err)
	}
	l.Launcher = by
	tmp, err := newTmpDir()
	if err != nil {
		return nil, fmt.Errorf("server %q: sandbox: private temporary folder: %w", p.Server, err)
	}
	l.TmpDir = tmp
	rules, err := launch.Ruleset(launch.Rules{
		ABI:     l.ABI,
		Read:    p.Read,
		Write:   append(append([]string(nil), p.Write...), tmp),
		Exec:    p.Exec,
		Connect: p.Network == decl.NetworkNone || p.Network == decl.NetworkList,
		Ports:   p.Ports,
	})
	if err != nil {
		l.Cleanup()
		return nil, fmt.Errorf("server %q: sandbox: %w", p.Server, err)
	}
	fd := launch.NoRules
	if rules != nil {
		// The child inherits it as descriptor 3 on, after the caller's ExtraFiles.
		fd = strconv.Itoa(3 + len(cmd.ExtraFiles))
		cmd.ExtraFiles = append(cmd.ExtraFiles, rules)
		l.rules = rules
	}
	uidMap, gidMap := launch.NoNamespaces, launch.NoNamespaces
	if netNS {
		l.NetNS = true
		if by == ByLauncher && makesNamespaces(launcher) {
			uidMap, gidMap = launch.MapLine(os.Getuid()), launch.MapLine(os.Getgid())
		} else {
			newNamespaces(cmd)
		}
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = withVar(env, "TMPDIR", tmp)
	cmd.Args = append([]string{launcher}, launch.Args(fd, uidMap, gidMap, path, cmd.Args)...)
	cmd.Path = launcher
	return l, nil
}

// findLauncher returns the program that applies a policy and how it does (see Command).
func findLauncher() (path, by string, err error) {
	if env, ok := os.LookupEnv(LauncherEnv); ok && env != "" {
		// The child resolves a relative path from the server's folder: resolve it here, from
		// the folder it is checked in.
		abs, err := filepath.Abs(env)
		if err != nil || !isExecutable(abs) {
			return "", "", fmt.Errorf("launcher $%s=%s: not an executable file: %w", LauncherEnv, env, fs.ErrNotExist)
		}
		return abs, ByLauncher, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("this program's executable: %w", err)
	}
	if beside := filepath.Join(filepath.Dir(self), ByLauncher); isExecutable(beside) && onlyOursToChange(beside) {
		return beside, ByLauncher, nil
	}
	return self, ByReExec, nil
}

// isExecutable reports whether path is a regular file with an execute permission bit set.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// withVar returns env with k set to v (replacing any value it had).
func withVar(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}
