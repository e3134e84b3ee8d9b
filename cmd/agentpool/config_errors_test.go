package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every malformed config of config/testdata/malformed, run through the real CLI (the test
// binary as agentpool, which TestMain puts in $PATH) with `tools list`: no panic, exit 1, and
// one line on stderr naming the file, the line and the key. Each file's first line, "# want
// LINE TEXT", says the line and the text (key and what is wrong) the message must hold.
func TestConfigErrorsThroughCLI(t *testing.T) {
	bin, err := exec.LookPath("agentpool")
	if err != nil {
		t.Fatalf("agentpool is not in $PATH (TestMain puts it there): %v", err)
	}
	paths, err := filepath.Glob(filepath.Join("..", "..", "config", "testdata", "malformed", "*.yaml"))
	if err != nil || len(paths) < 30 {
		t.Fatalf("config/testdata/malformed: %d files (want at least 30), err %v", len(paths), err)
	}
	home := t.TempDir()
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(strings.TrimPrefix(string(data), "\ufeff"), "\n")
			var line int
			if _, err := fmt.Sscanf(first, "# want %d", &line); err != nil {
				t.Fatalf("first line %q is not \"# want LINE TEXT\"", first)
			}
			_, want, _ := strings.Cut(strings.TrimPrefix(first, "# want "), " ")
			cfg := filepath.Join(t.TempDir(), filepath.Base(p))
			if err := os.WriteFile(cfg, data, 0o644); err != nil {
				t.Fatal(err)
			}

			cmd := exec.Command(bin, "--config", cfg, "--no-default-roots", "tools", "list")
			cmd.Dir = filepath.Dir(cfg)
			cmd.Env = withoutEnv(append(os.Environ(), "HOME="+home), "AP_I9_UNSET_VAR")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()

			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("exit: %v, want exit status 1", err)
			}
			msg := stderr.String()
			if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine") {
				t.Fatalf("stderr holds a panic:\n%s", msg)
			}
			if strings.Count(strings.TrimSuffix(msg, "\n"), "\n") != 0 || msg == "" {
				t.Errorf("stderr is not one line:\n%s", msg)
			}
			if at := fmt.Sprintf("%s:%d:", cfg, line); !strings.Contains(msg, at) {
				t.Errorf("stderr %q does not name %q", msg, at)
			}
			if !strings.Contains(msg, want) {
				t.Errorf("stderr %q lacks %q", msg, want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}
}

// withoutEnv returns env without any entry for name.
func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
