package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/regfile"
)

// aliasBomb returns a config of a few hundred bytes whose static tool's input_schema holds
// YAML aliases nine levels deep: 9^levels strings once expanded (a "billion laughs").
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("mcp_servers:\n  x:\n    command: x\n    lazy: true\n    tools:\n      - name: t\n        input_schema:\n")
	b.WriteString("          l0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < levels; i++ {
		a := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "          l%d: &a%d [%s]\n", i, i, strings.Repeat(a+", ", 8)+a)
	}
	return b.String()
}

// within fails the test when f has not returned after a generous time: a liveness bound, not
// a measure of speed.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("still running after a minute")
	}
}

// TestAliasBombRefused: a nine-level alias bomb in a tool's input_schema (387 million strings
// expanded; every JSON fingerprint of the schema expands it) is refused with an error naming
// the key and the aliases, as SKILL.md frontmatter is, instead of eating gigabytes.
func TestAliasBombRefused(t *testing.T) {
	data := aliasBomb(9)
	within(t, func() {
		cfg, err := Parse("cfg.yaml", []byte(data))
		if err == nil {
			t.Fatalf("%d-byte config expanding to 387 million strings accepted (%d servers)", len(data), len(cfg.MCPServers))
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "cfg.yaml:8:") || !strings.Contains(msg, "mcp_servers.x.tools[0].input_schema") || !strings.Contains(msg, "aliases expand") {
			t.Errorf("error %q, want one at cfg.yaml:8: (its value) naming mcp_servers.x.tools[0].input_schema and the aliases", msg)
		}
	})
	// Aliases within reason still work.
	ok := "mcp_servers:\n  x:\n    command: x\n    lazy: true\n    tools:\n      - name: t\n        input_schema: &s {type: object}\n      - name: u\n        input_schema: *s\n"
	if cfg, err := Parse("cfg.yaml", []byte(ok)); err != nil || cfg.MCPServers["x"].Tools[1].InputSchema["type"] != "object" {
		t.Errorf("a small alias refused: %v", err)
	}
}

// TestLoadSizeCap: a config file larger than MaxFileSize is refused before it is parsed, with
// an error naming the file and the cap.
func TestLoadSizeCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	big := "# " + strings.Repeat("x", MaxFileSize) + "\n"
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if !errors.Is(err, regfile.ErrTooLarge) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("Load(%d-byte file) = %v, want ErrTooLarge naming the file and the 1 MiB cap", len(big), err)
	}
}

// TestLoadDevZero: --config /dev/zero is a character device, refused at once (it would
// otherwise be read until memory runs out).
func TestLoadDevZero(t *testing.T) {
	within(t, func() {
		_, err := Load("/dev/zero")
		if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero: is a character device, not a regular file") {
			t.Errorf("Load(/dev/zero) = %v, want a character device refused", err)
		}
	})
}
