package testserver

import "testing"

var drift = sibling{name: "driftserver", pkg: "github.com/agentpool/agentpool/internal/testserver/cmd/driftserver"}

// BuildDrift compiles the driftserver binary (cmd/driftserver: tools whose definitions change
// on command) once per test process, beside the faultserver's, and returns its path. A build
// failure fails t. It is safe for concurrent use.
func BuildDrift(t testing.TB) string {
	t.Helper()
	return drift.build(t)
}
