//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runEnds runs the agentpool binary with args in dir and returns its output (stdout and
// stderr together) and exit code,
// failing (and killing it) when it has not ended within waitExit's generous bound: these
// inputs used to block in open(2) or read without end, where no signal could end the CLI.
func runEnds(t *testing.T, dir string, args ...string) (output string, code int) {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, strings.Join(args, " "))
	return out.String(), cmd.ProcessState.ExitCode()
}

// TestSpecialInputsEndAtOnce: a named pipe given to `skills validate`, as --config or read
// as skill://fs/pipe, and /dev/zero as --config, each end the CLI with a clear error instead
// of a hang; a SKILL.md that is a named pipe is a diagnostic, and the other skills list.
func TestSpecialInputsEndAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	skills := filepath.Join(dir, "skills")
	writeFile(t, filepath.Join(skills, "fs", "SKILL.md"), "---\nname: fs\ndescription: Holds a pipe.\n---\nbody\n")
	piped := filepath.Join(skills, "piped", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(piped), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, filepath.Join(skills, "fs", "pipe"), piped} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"skills", "validate", fifo}, 1, fifo + ": error: SKILL.md is a named pipe, not a regular file"},
		{[]string{"--no-default-roots", "--config", fifo, "skills", "list"}, exitFailure, fifo + ": is a named pipe, not a regular file"},
		{[]string{"--no-default-roots", "--config", "/dev/zero", "skills", "list"}, exitFailure, "/dev/zero: is a character device, not a regular file"},
		{[]string{"--no-default-roots", "--skills-dir", skills, "read", "skill://fs/pipe"}, -1, "is a named pipe, not a regular file"},
		{[]string{"--no-default-roots", "--skills-dir", skills, "skills", "list"}, 0, piped + ": error: SKILL.md is a named pipe, not a regular file"},
	} {
		out, code := runEnds(t, dir, tc.args...)
		if tc.code >= 0 && code != tc.code || tc.code < 0 && code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("agentpool %s: exit %d, output %q; want exit %d and %q", strings.Join(tc.args, " "), code, out, tc.code, tc.want)
		}
	}
}

// TestDiscoveryDoesNotPrintOutside: a skill holding etcdir -> /etc lists, with one warning on
// the link, and no path under /etc anywhere in the output.
func TestDiscoveryDoesNotPrintOutside(t *testing.T) {
	t.Parallel()
	skills := t.TempDir()
	writeFile(t, filepath.Join(skills, "fs", "SKILL.md"), "---\nname: fs\ndescription: Holds a link out.\n---\nbody\n")
	link := filepath.Join(skills, "fs", "etcdir")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBinary(t, skills, "--no-default-roots", "--skills-dir", skills, "skills", "list")
	if code != 0 || !strings.Contains(stdout, "fs") {
		t.Errorf("skills list: exit %d, stdout %q", code, stdout)
	}
	if strings.Contains(stdout+stderr, "/etc/") || strings.Count(stderr, link) != 1 {
		t.Errorf("skills list stderr %q: want one warning on %s and no path under /etc", stderr, link)
	}
}
