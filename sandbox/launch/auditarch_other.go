//go:build !amd64 && !arm64

package launch

// auditArch is 0: the seccomp filter is not installed on this architecture.
const auditArch = 0
