package testserver

import "testing"

var hostile = sibling{name: "hostileserver", pkg: "github.com/agentpool/agentpool/internal/testserver/cmd/hostileserver"}

// BuildHostile compiles the hostileserver binary (cmd/hostileserver: tools that read, write,
// connect, bind, signal and run what they are told and say whether the system let them) once
// per test process, beside the faultserver's, and returns its path. A build failure fails t.
// It is safe for concurrent use.
func BuildHostile(t testing.TB) string {
	t.Helper()
	return hostile.build(t)
}
