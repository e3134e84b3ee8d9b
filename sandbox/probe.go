package sandbox

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// MaxABI is the highest Landlock ABI whose rules this package applies; a newer kernel is used
// at this level. (ABI 7 adds only audit-logging flags, left at the kernel's default.)
const MaxABI = 7

// Support is what the kernel offers a sandbox.
type Support struct {
	// LandlockABI is the kernel's Landlock ABI version, at most MaxABI; 0 means no Landlock.
	// Filesystem rules need 1, TCP rules 4, the scoping of abstract sockets and signals 6.
	LandlockABI int
	// UserNS reports whether an unprivileged process can create a user namespace with a
	// network namespace in it (network: none).
	UserNS bool
}

// simulateEnv names the test hook (see the package doc).
const simulateEnv = "AGENTPOOL_SANDBOX_SIMULATE"

var (
	kernelOnce    sync.Once
	kernelSupport Support
)

// Probe reports what the kernel offers. The kernel is asked once per process (starting a
// process in new namespaces, which takes a few milliseconds); AGENTPOOL_SANDBOX_SIMULATE is
// read on every call.
func Probe() Support {
	kernelOnce.Do(func() { kernelSupport = probeKernel() })
	s := kernelSupport
	for _, w := range strings.Split(os.Getenv(simulateEnv), ",") {
		switch strings.TrimSpace(w) {
		case "no-landlock":
			s.LandlockABI = 0
		case "no-userns":
			s.UserNS = false
		default:
			if n, ok := strings.CutPrefix(strings.TrimSpace(w), "abi="); ok {
				if v, err := strconv.Atoi(n); err == nil && v >= 0 && v < s.LandlockABI {
					s.LandlockABI = v
				}
			}
		}
	}
	return s
}
