package launch

// auditArch is this architecture's AUDIT_ARCH_* value, which the seccomp filter checks.
const auditArch = 0xc00000b7
