package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A --skills-dir that is not there, or not a folder, is an error naming it: not a warning
// followed by a run without those skills (and without the bundled ones it turns off).
func TestSkillsDirMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeTestFile(t, file, "x")
	for _, path := range []string{filepath.Join(dir, "missing"), file} {
		for _, args := range [][]string{{"skills", "list"}, {"serve", "--stdio"}} {
			out, stderr, code := runIn(t, dir, []string{"HOME=" + dir}, append([]string{"--skills-dir", path}, args...)...)
			if code != exitFailure || !strings.Contains(stderr, "--skills-dir "+path+": ") {
				t.Errorf("--skills-dir %s %v: exit %d, want %d and an error naming the path\n%s%s", path, args, code, exitFailure, out, stderr)
			}
		}
	}
}

// trust of a folder that does not exist (or of a file) is an error naming it, and records
// nothing.
func TestTrustMissingFolder(t *testing.T) {
	t.Parallel()
	dir, xdg := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "file")
	writeTestFile(t, file, "x")
	for _, path := range []string{filepath.Join(dir, "missing"), file} {
		out, stderr, code := runIn(t, dir, []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + xdg}, "trust", path)
		if code != exitFailure || !strings.Contains(stderr, path) {
			t.Errorf("trust %s: exit %d, want %d and an error naming it\n%s%s", path, code, exitFailure, out, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(xdg, "agentpool", "trust.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("trust of no folder wrote the trust store: %v", err)
	}
}

// An unknown command, at the top or under a group (tools lst), prints the error naming it and
// the command probably meant, and exits exitUsage; a group alone still prints its help.
func TestUnknownCommandExitCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand" for "agentpool"`},
		{[]string{"tools", "lst"}, `unknown command "lst" for "agentpool tools" (did you mean list?)`},
		{[]string{"plugins", "lsit"}, `unknown command "lsit" for "agentpool plugins"`},
	} {
		out, stderr, code := runIn(t, dir, []string{"HOME=" + dir}, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", c.args, code, exitUsage, c.want, out, stderr)
		}
	}
	out, _, code := runIn(t, dir, []string{"HOME=" + dir}, "tools")
	if code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("tools alone: exit %d, want 0 and its help:\n%s", code, out)
	}
}

// A piped chat whose every turn failed exits exitFailure; one with a turn answered exits 0.
func TestChatEveryTurnFailed(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	for input, want := range map[string]int{"rate me\n": exitFailure, "rate me\nhello\n": 0} {
		cmd := exec.Command("agentpool", f.args()...)
		cmd.Env = f.env
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Errorf("chat with %q: exit %d, want %d\n%s", input, code, want, stderr.String())
		}
		if want != 0 && !strings.Contains(stderr.String(), "every turn failed") {
			t.Errorf("chat with %q: no word of every turn failing:\n%s", input, stderr.String())
		}
	}
}
