package config

import (
	"strings"
	"testing"
)

// Each limit key added for serve refuses a bad value with an error naming the key; a config
// that sets them well parses.
func TestLimitKeysBadValues(t *testing.T) {
	for _, c := range []struct{ yaml, key string }{
		{"server: {max_inflight: -1}\n", "server.max_inflight"},
		{"server: {max_connections: -5}\n", "server.max_connections"},
		{"server: {max_sessions_per_user: -1}\n", "server.max_sessions_per_user"},
		{"server: {session_grace: -2m}\n", "server.session_grace"},
		{"server: {session_grace: soon}\n", "server.session_grace"},
		{"server: {ready_when_degraded: maybe}\n", "server.ready_when_degraded"},
		{"server: {max_inflight: many}\n", "server.max_inflight"},
		{"pool: {max_session_processes: -1}\n", "pool.max_session_processes"},
	} {
		_, err := Parse("agentpool.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: err = %v, want an error naming %s", c.yaml, err, c.key)
		}
	}
	cfg, err := Parse("agentpool.yaml", []byte("server: {max_inflight: 8, max_connections: 100, max_sessions_per_user: 2, session_grace: 30s, ready_when_degraded: true}\npool: {max_session_processes: 10}\n"))
	if err != nil {
		t.Fatalf("good limits refused: %v", err)
	}
	if s := cfg.Server; s.MaxInflight != 8 || s.MaxConnections != 100 || s.MaxSessionsPerUser != 2 || s.SessionGrace.Seconds() != 30 || !s.ReadyWhenDegraded || cfg.Pool.MaxSessionProcesses != 10 {
		t.Errorf("parsed %+v, pool %+v", s, cfg.Pool)
	}
}
