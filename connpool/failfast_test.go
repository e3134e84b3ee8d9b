package connpool

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// TestStartFailureKinds: a start that cannot succeed by trying again (no such command, no
// execute permission, no such cwd, HTTP 401/403/404 on initialize) wraps ErrPermanent; a start
// that ran out of StartTimeout wraps ErrStartTimeout; a server that merely died or answered
// 500 wraps neither. Every one wraps ErrStart and is not cached.
func TestStartFailureKinds(t *testing.T) {
	p := newTestPool(t, nil)
	dir := t.TempDir()
	noexec := filepath.Join(dir, "noexec.sh")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, http.StatusText(code), code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	fs := faultBinary(t)
	for _, tc := range []struct {
		name                string
		cfg                 ServerConfig
		permanent, timedOut bool
	}{
		{"no such file", ServerConfig{Server: decl.Server{Command: filepath.Join(dir, "no-such-server")}}, true, false},
		{"not on PATH", ServerConfig{Server: decl.Server{Command: "agentpool-no-such-command-9f3b"}}, true, false},
		{"no execute permission", ServerConfig{Server: decl.Server{Command: noexec}}, true, false},
		{"no such cwd", ServerConfig{Server: decl.Server{Command: fs, Cwd: filepath.Join(dir, "gone")}}, true, false},
		{"http 401", ServerConfig{Server: decl.Server{URL: status(http.StatusUnauthorized)}}, true, false},
		{"http 403", ServerConfig{Server: decl.Server{URL: status(http.StatusForbidden)}}, true, false},
		{"http 404", ServerConfig{Server: decl.Server{URL: status(http.StatusNotFound)}}, true, false},
		{"sse 401", ServerConfig{Server: decl.Server{Type: TypeSSE, URL: status(http.StatusUnauthorized)}}, true, false},
		{"http 500", ServerConfig{Server: decl.Server{URL: status(http.StatusInternalServerError)}}, false, false},
		{"exit at start", ServerConfig{Server: decl.Server{Command: fs, Args: []string{"--exit-at-start", "2"}}}, false, false},
		{"hang initialize", ServerConfig{Server: decl.Server{Command: fs, Args: []string{"--hang-initialize"}, StartupTimeout: 300 * time.Millisecond}}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Name = tc.name
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := p.Get(ctx, tc.cfg, GlobalPartition)
			if err == nil {
				p.Release(c)
				t.Fatal("Get succeeded")
			}
			t.Log(err)
			if !errors.Is(err, ErrStart) {
				t.Errorf("error does not wrap ErrStart")
			}
			if got := errors.Is(err, ErrPermanent); got != tc.permanent {
				t.Errorf("errors.Is(err, ErrPermanent) = %v, want %v", got, tc.permanent)
			}
			if got := errors.Is(err, ErrStartTimeout); got != tc.timedOut {
				t.Errorf("errors.Is(err, ErrStartTimeout) = %v, want %v", got, tc.timedOut)
			}
			if s := p.Stats(); s.Clients+s.Starting != 0 {
				t.Fatalf("failed start cached: %+v", s)
			}
		})
	}
}
