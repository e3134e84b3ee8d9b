package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An untrusted project's agentpool.yaml that does not parse (or names an unset variable) is
// skipped with the rest of the project, the notice saying it has errors: a cloned repository
// must not break agentpool for its user. `agentpool trust` refuses it with the error, and a
// trusted project whose config breaks fails clearly, starting nothing.
func TestBrokenProjectConfig(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"syntax":    "mcp_servers: [\n",
		"unset var": "mcp_servers:\n  x:\n    command: ${AGENTPOOL_REVIEW_UNSET}\n",
	} {
		t.Run(name, func(t *testing.T) {
			r := newTrustRepo(t)
			writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), text)
			for _, args := range [][]string{{"skills", "list"}, {"commands", "list"}, {"tools", "list"}} {
				stdout, stderr, code := r.run(t, args...)
				if code != 0 || strings.Count(stderr, "is not trusted") != 1 || !strings.Contains(stderr, "agentpool.yaml (with errors)") {
					t.Errorf("%s in an untrusted project with a broken config: exit %d\nstdout %s\nstderr %s", args, code, stdout, stderr)
				}
			}
			if m := r.created(); len(m) > 0 {
				t.Errorf("created %v", m)
			}
			_, stderr, code := r.run(t, "trust")
			if code == 0 || !strings.Contains(stderr, "agentpool.yaml") {
				t.Errorf("trust of a project with a broken config: exit %d, stderr %s; want it refused with the error", code, stderr)
			}
			if _, _, code := r.run(t, "--trust-project", "tools", "list"); code == 0 {
				t.Errorf("--trust-project with a broken config: exit 0, want the config error")
			}
			// Trusted, then broken: a clear failure, nothing started.
			r.writeConfig(t, "")
			if _, stderr, code := r.run(t, "trust"); code != 0 {
				t.Fatalf("trust: %s", stderr)
			}
			writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), text)
			_, stderr, code = r.run(t, "tools", "list")
			if code == 0 || !strings.Contains(stderr, "agentpool.yaml") {
				t.Errorf("trusted project, broken config: exit %d, stderr %s; want the config error", code, stderr)
			}
			if m := r.created(); len(m) > 0 {
				t.Errorf("created %v", m)
			}
		})
	}
}

// A project is keyed by its real path, so reaching it through a symlink is the same project:
// trusted in its real folder, it is trusted when run through a link to it (and the other way).
func TestTrustThroughSymlink(t *testing.T) {
	r := newTrustRepo(t)
	real := r.dir
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	// A shell that cd'ed through the link says so in $PWD, which os.Getwd believes.
	t.Setenv("PWD", link)
	r.dir = link
	stdout, stderr, _ := r.run(t, "tools", "list")
	if strings.Contains(stderr, "trust") || !strings.Contains(stdout, "cfgsrv__echo") {
		t.Errorf("run through a link to a trusted project:\nstdout %s\nstderr %s", stdout, stderr)
	}
	r.created()
	r.dir = real
	if _, stderr, code := r.run(t, "untrust"); code != 0 {
		t.Fatalf("untrust: %s", stderr)
	}
	r.dir = link
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust through the link: %s", stderr)
	}
	t.Setenv("PWD", real)
	r.dir = real
	stdout, stderr, _ = r.run(t, "tools", "list")
	if strings.Contains(stderr, "trust") || !strings.Contains(stdout, "cfgsrv__echo") {
		t.Errorf("trusted through a link, run in the real folder:\nstdout %s\nstderr %s", stdout, stderr)
	}
	r.created()
}

// env_passthrough hands a server variables of the user's environment (API keys): adding it to
// a trusted project's server changes what that server gets, so the project asks again, and
// trust names the variables it would pass.
func TestEnvPassthroughAsksAgain(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), fmt.Sprintf(`mcp_servers:
  cfgsrv:
    command: sh
    args: ["-c", "touch %s; exec %s"]
    env_passthrough: [AGENTPOOL_REVIEW_SECRET]
`, r.markers[2], r.bin))
	_, stderr, _ := r.run(t, "tools", "list")
	if !strings.Contains(stderr, "changed since you trusted it (new or changed: cfgsrv)") {
		t.Errorf("env_passthrough added to a trusted server: stderr %s; want the project changed", stderr)
	}
	if m := r.created(); slices.Contains(m, "config") {
		t.Errorf("the changed server started: %v", m)
	}
	stdout, _, _ := r.run(t, "trust")
	if !strings.Contains(stdout, "passes: AGENTPOOL_REVIEW_SECRET") {
		t.Errorf("trust does not name the variables passed through:\n%s", stdout)
	}
}

// The user's extensions.allowed_commands is the user's policy: a trusted project's
// agentpool.yaml, which replaces the user's config, does not lift it.
func TestUserAllowListHoldsInTrustedProject(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "sandbox: off\nextensions:\n  allowed_commands: [true]\n")
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	stdout, stderr, code := r.run(t, "tools", "list")
	if m := r.created(); len(m) > 0 {
		t.Errorf("a trusted project ran %v past the user's allowed_commands:\nstdout %s\nstderr %s", m, stdout, stderr)
	}
	if code == 0 || !strings.Contains(stderr, "allowed_commands") {
		t.Errorf("a trusted project's server outside the user's allowed_commands: exit %d, stderr %s; want a clear error", code, stderr)
	}
}

// A trusted project that was moved or deleted can still be untrusted by its old path: its
// record must not stay behind for whatever is created there next.
func TestUntrustGoneProject(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	old := r.dir
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	r.dir = moved
	stdout, stderr, code := r.run(t, "untrust", old)
	if code != 0 || !strings.Contains(stdout, "no longer trusted") {
		t.Errorf("untrust of a moved project's old path: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(r.xdg, "agentpool", "trust.json"))
	if strings.Contains(string(data), old) {
		t.Errorf("the record of %s stayed:\n%s", old, data)
	}
}

// trust prints what the project's config would run as the file says it, ${VAR} and all: the
// value of a variable (a token passed in args or a URL) is the user's secret, never printed.
func TestTrustPrintsNoExpandedSecret(t *testing.T) {
	r := newTrustRepo(t)
	t.Setenv("AGENTPOOL_REVIEW_TOKEN", "s3cr3t-t0ken-value")
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), `mcp_servers:
  cfgsrv:
    command: sh
    args: ["-c", "exec srv --token ${AGENTPOOL_REVIEW_TOKEN}"]
  remote:
    url: https://example.invalid/${AGENTPOOL_REVIEW_TOKEN}/mcp
`)
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	if strings.Contains(stdout+stderr, "s3cr3t-t0ken-value") {
		t.Errorf("trust printed the value of a variable:\n%s%s", stdout, stderr)
	}
	if strings.Count(stdout, "${AGENTPOOL_REVIEW_TOKEN}") != 2 {
		t.Errorf("trust does not show where the variable is used:\n%s", stdout)
	}
}

// Names a cloned repository chooses (a server's, an env or header name in its mcp.json) reach
// the terminal escaped: neither the notice every command prints nor trust's listing carries a
// raw control character (a terminal escape, or a newline that forges a line).
func TestTrustOutputEscapesProjectNames(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	writeFile(t, filepath.Join(r.dir, ".claude/skills/jsonskill/mcp.json"),
		`{"mcpServers": {"srv\n\u001b[31mFORGED": {"command": "sh", "env": {"E\u001b[1mX": "v"}, "headers": {"H\nY": "v"}}}}`)
	_, stderr, _ := r.run(t, "tools", "list")
	if strings.ContainsAny(stderr, "\x1b") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("the notice carries a project's control characters: %q", stderr)
	}
	stdout, _, _ := r.run(t, "trust")
	if strings.ContainsAny(stdout, "\x1b") || strings.Contains(stdout, "\nY") {
		t.Errorf("trust prints a project's control characters: %q", stdout)
	}
}

// A project's skill or command file that cannot be loaded is reported by skills list and
// commands list, as the user's are, trusted or not: never a silently missing skill.
func TestProjectDiagnosticsListed(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.dir, ".agents/skills/broken/SKILL.md"), "---\nname: broken\n---\nNo description.\n")
	writeFile(t, filepath.Join(r.dir, ".claude/commands/bad.md"), "---\ndescription: [unclosed\n---\nx\n")
	for _, trusted := range []bool{false, true} {
		var flags []string
		if trusted {
			flags = []string{"--trust-project"}
		}
		_, stderr, _ := r.run(t, append(flags, "skills", "list")...)
		if !strings.Contains(stderr, filepath.Join("broken", "SKILL.md")) {
			t.Errorf("trusted %v: skills list does not report the project's broken skill:\n%s", trusted, stderr)
		}
		stdout, _, _ := r.run(t, append(flags, "skills", "list", "--json")...)
		if !strings.Contains(stdout, filepath.Join("broken", "SKILL.md")) {
			t.Errorf("trusted %v: skills list --json has no diagnostic of the broken skill:\n%s", trusted, stdout)
		}
		_, stderr, _ = r.run(t, append(flags, "commands", "list")...)
		if !strings.Contains(stderr, "bad.md") {
			t.Errorf("trusted %v: commands list does not report the project's broken command file:\n%s", trusted, stderr)
		}
		r.created()
	}
}

// Trusting a folder that holds nothing yet says so, and what trusting it means for what is
// added later: a typo'd folder is not trusted without a word.
func TestTrustEmptyFolderSaysSo(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	r.dir = t.TempDir()
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 || !strings.Contains(stdout, "holds nothing yet") {
		t.Errorf("trust of an empty folder: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// In the folder of the user's own config ($XDG_CONFIG_HOME/agentpool), its agentpool.yaml is
// the user's, not a project's: no notice says it was skipped while it is in use.
func TestUserConfigFolderIsNoProjectConfig(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	r.dir = filepath.Join(r.xdg, "agentpool")
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"),
		"mcp_servers:\n  mine:\n    command: /nonexistent/server\n    lazy: true\n    tools: [{name: t, description: Mine.}]\n")
	stdout, stderr, _ := r.run(t, "tools", "list")
	if !strings.Contains(stdout, "mine__t") || strings.Contains(stderr, "skipped") {
		t.Errorf("in the user's config folder:\nstdout %s\nstderr %s", stdout, stderr)
	}
}

// Without $HOME (and $XDG_CONFIG_HOME), as some services and containers run, there is no trust
// store: agentpool still runs, the project untrusted and said so, its agentpool.yaml shown as
// skipped rather than silently ignored.
func TestNoHome(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command("agentpool", "tools", "list")
	cmd.Dir, cmd.Env = r.dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil || !strings.Contains(errOut.String(), "agentpool.yaml (1 server)") {
		t.Errorf("without HOME: %v\nstdout %s\nstderr %s", err, out.String(), errOut.String())
	}
	if m := r.created(); len(m) > 0 {
		t.Errorf("created %v", m)
	}
}

// A relative $HOME ("." or "") names no home: the project's folders must not become the
// user's own (trusted) because HOME resolves to the working directory.
func TestRelativeHome(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	cmd := exec.Command("agentpool", "tools", "list")
	cmd.Dir, cmd.Env = r.dir, append(os.Environ(), "HOME=.", "XDG_CONFIG_HOME="+r.xdg)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	if m := r.created(); len(m) > 0 || strings.Contains(out.String(), "front__") {
		t.Errorf("HOME=. made the project the user's: created %v\nstdout %s\nstderr %s", m, out.String(), errOut.String())
	}
}

// Trusting a changed project again marks what is new or changed since the last time, so the
// user reviews that rather than the whole list again.
func TestTrustAgainMarksChanges(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	r.writeConfig(t, " --log /dev/null")
	stdout, _, _ := r.run(t, "trust")
	if !regexpMatch(`(?m)^  cfgsrv \(agentpool.yaml\): .*\(new or changed\)$`, stdout) || strings.Count(stdout, "(new or changed)") != 1 {
		t.Errorf("trust of a changed project does not mark what changed:\n%s", stdout)
	}
}
