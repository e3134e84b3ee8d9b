package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"github.com/agentpool/agentpool/decl"
)

// ErrUnavailable is wrapped by Command's error when the kernel lacks what a required policy
// needs.
var ErrUnavailable = errors.New("sandbox unavailable")

// entryArg is os.Args[1] of the entry point; policyEnv carries the launch to it.
const (
	entryArg  = "__agentpool-sandbox"
	policyEnv = "AGENTPOOL_SANDBOX_POLICY"
)

// launch is what the entry point receives: the policy and the Landlock ABI to apply it at.
type launch struct {
	Policy *Policy `json:"policy"`
	ABI    int     `json:"abi"`
}

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
}

// Cleanup removes the private temporary folder. Call it once the server has exited; it is
// idempotent.
func (l *Launch) Cleanup() {
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

// Command rewrites cmd, built by exec.Command with its Dir, Env and SysProcAttr set (or
// nil), to start through this program's executable, which applies p and then executes the
// command in its place (see the package doc). cmd must not have been started. Command sets
// TMPDIR in cmd.Env to a new private folder (Launch.Cleanup removes it) and, for network
// none, the user and network namespace flags in cmd.SysProcAttr; the caller's other
// attributes (Setpgid, Pdeathsig) stay.
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
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("server %q: sandbox: this program's executable: %w", p.Server, err)
	}
	tmp, err := os.MkdirTemp("", "agentpool-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("server %q: sandbox: private temporary folder: %w", p.Server, err)
	}
	l.TmpDir = tmp
	applied := *p
	applied.Write = append(append([]string(nil), p.Write...), tmp)
	payload, err := json.Marshal(launch{Policy: &applied, ABI: l.ABI})
	if err != nil {
		l.Cleanup()
		return nil, err
	}
	if netNS {
		l.NetNS = true
		newNamespaces(cmd)
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = withVar(env, "TMPDIR", tmp)
	cmd.Env = append(env, policyEnv+"="+string(payload))
	cmd.Args = append([]string{self, entryArg, path}, cmd.Args...)
	cmd.Path = self
	return l, nil
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
