package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A trusted project's skills are scanned by the host's one skill manager: skills list reports
// each of their diagnostics once, not once more from the project's inspection.
func TestTrustedProjectDiagnosticsOnce(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.dir, ".agents/skills/broken/SKILL.md"), "---\nname: broken\n---\nNo description.\n")
	for _, flags := range [][]string{nil, {"--trust-project"}} {
		_, stderr, _ := r.run(t, append(flags, "skills", "list")...)
		if n := strings.Count(stderr, filepath.Join("broken", "SKILL.md")); n != 1 {
			t.Errorf("%v: skills list reports the broken skill %d times, want once:\n%s", flags, n, stderr)
		}
		stdout, _, _ := r.run(t, append(flags, "skills", "list", "--json")...)
		if n := strings.Count(stdout, `"path": "`+filepath.Join(r.dir, ".agents", "skills", "broken", "SKILL.md")); n != 1 {
			t.Errorf("%v: skills list --json has the broken skill's diagnostic %d times, want once:\n%s", flags, n, stdout)
		}
	}
	r.created()
}

// trust prints a project server that one of the user's own outranks (the same name) as not
// used, rather than among what the project would run without a word.
func TestTrustSaysShadowedServer(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "sandbox: off\n"+
		"mcp_servers:\n  cfgsrv:\n    command: /nonexistent/server\n    lazy: true\n    tools: [{name: t, description: Mine.}]\n")
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: exit %d\n%s", code, stderr)
	}
	var line string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "cfgsrv (agentpool.yaml)") {
			line = l
		}
	}
	if !strings.Contains(line, "not used") {
		t.Errorf("trust prints the shadowed cfgsrv as %q, want it marked not used:\n%s", line, stdout)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "front.srv") && strings.Contains(l, "not used") {
			t.Errorf("a skill's server marked not used: %q", l)
		}
	}
}

// A trusted project's agentpool.yaml naming a skill folder that does not exist is reported by
// skills list, once, as a missing folder of the user's own config is.
func TestTrustedProjectMissingSkillDir(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	f, err := os.OpenFile(filepath.Join(r.dir, "agentpool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "skills:\n  dirs: [nosuchskills]\n")
	f.Close()
	_, stderr, _ := r.run(t, "--trust-project", "skills", "list")
	if n := strings.Count(stderr, "nosuchskills"); n != 1 {
		t.Errorf("skills list mentions the missing nosuchskills %d times, want once:\n%s", n, stderr)
	}
	r.created()
}

// trust fingerprints the project with the user's skills.max_folders, as every run scans it: a
// skill past the default folder budget is trusted with the rest, not "changed" at once.
func TestTrustWithUserBounds(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "sandbox: off\nskills:\n  max_folders: 5000\n")
	for i := range 2100 {
		if err := os.MkdirAll(filepath.Join(r.dir, ".agents/skills/many", fmt.Sprintf("a%04d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(filepath.Join(r.dir, ".agents/skills/front"), filepath.Join(r.dir, ".agents/skills/zz")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %d %s", code, stderr)
	}
	stdout, stderr, _ := r.run(t, "tools", "list")
	if strings.Contains(stderr, "changed since") || !strings.Contains(stdout, "front__") {
		t.Errorf("after trust: tools list %s\nstderr %s; want the project trusted, front's server listed", stdout, stderr)
	}
	r.created()
}

// An untrusted project's agentpool.yaml naming folders outside the project (skills.dirs: [/],
// commands.dirs: [/etc, /root]; here a folder standing for /root) is listed, not followed:
// skills list and commands list print nothing from those folders, and say they were not
// scanned. Trusted, or being trusted, they are scanned.
func TestUntrustedProjectPathsNotScanned(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	root := t.TempDir() // stands for /root
	writeFile(t, filepath.Join(root, "secret-skill/SKILL.md"), "---\nname: secret-skill\ndescription: SECRETSKILLMARKER\n---\nbody\n")
	writeFile(t, filepath.Join(root, "secret.md"), "SECRETCOMMANDMARKER first line\n")
	f, err := os.OpenFile(filepath.Join(r.dir, "agentpool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "skills:\n  dirs: [%s]\ncommands:\n  dirs: [%s]\n", root, root)
	f.Close()
	for _, args := range [][]string{{"skills", "list"}, {"skills", "list", "--json"}, {"commands", "list"}, {"commands", "list", "--json"}} {
		stdout, stderr, _ := r.run(t, args...)
		if strings.Contains(stdout+stderr, "SECRET") || strings.Contains(stdout+stderr, "secret-skill") {
			t.Errorf("%v in an untrusted project prints what lies outside it:\n%s\n%s", args, stdout, stderr)
		}
		if !strings.Contains(stdout, "front") && !strings.Contains(stdout, "projcmd") {
			t.Errorf("%v: the project's own skills and commands are no longer listed:\n%s", args, stdout)
		}
	}
	if _, stderr, _ := r.run(t, "skills", "list"); !strings.Contains(stderr, root+": not scanned") {
		t.Errorf("skills list does not say the folder outside the project was not scanned:\n%s", stderr)
	}
	stdout, _, _ := r.run(t, "--trust-project", "skills", "list")
	if !strings.Contains(stdout, "secret-skill") {
		t.Errorf("trusted for this run, the project's skills.dirs are not scanned:\n%s", stdout)
	}
	r.created()
}

// Inside an untrusted project's own folders, a symlink out of the project is not followed: a
// command file (.claude/commands/x.md → a file elsewhere), a folder of command files, a skill
// folder (.agents/skills/x → a skill elsewhere) and a SKILL.md are not read, and each link is
// reported with where it points. Trusted for the run, they are read as before.
func TestUntrustedProjectLinksOutNotRead(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	root := t.TempDir() // stands for /root
	writeFile(t, filepath.Join(root, "far/SKILL.md"), "---\nname: secret-skill\ndescription: SECRETSKILLMARKER\n---\nbody\n")
	writeFile(t, filepath.Join(root, "other-skill/SKILL.md"), "---\nname: linked-file-skill\ndescription: SECRETFILEMARKER\n---\nbody\n")
	writeFile(t, filepath.Join(root, "secret.md"), "SECRETCOMMANDMARKER first line\n")
	writeFile(t, filepath.Join(root, "cmds/deep.md"), "SECRETDEEPMARKER first line\n")
	writeFile(t, filepath.Join(r.dir, ".agents/skills/linkfile/placeholder"), "")
	for link, target := range map[string]string{
		".claude/commands/leak.md":         filepath.Join(root, "secret.md"),
		".claude/commands/sub":             filepath.Join(root, "cmds"),
		".agents/skills/leak":              filepath.Join(root, "far"),
		".agents/skills/linkfile/SKILL.md": filepath.Join(root, "other-skill/SKILL.md"),
		".claude/commands/inside.md":       filepath.Join(r.dir, ".claude/commands/projcmd.md"),
	} {
		if err := os.Symlink(target, filepath.Join(r.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"skills", "list"}, {"skills", "list", "--json"}, {"commands", "list"}, {"commands", "list", "--json"}} {
		stdout, stderr, _ := r.run(t, args...)
		if strings.Contains(stdout+stderr, "MARKER") || strings.Contains(stdout, "secret-skill") || strings.Contains(stdout, "/leak ") {
			t.Errorf("%v in an untrusted project prints what its links lead to outside it:\n%s\n%s", args, stdout, stderr)
		}
		if !strings.Contains(stdout, "front") && !strings.Contains(stdout, "inside") {
			t.Errorf("%v: the project's own skills and commands are no longer listed:\n%s", args, stdout)
		}
	}
	_, stderr, _ := r.run(t, "commands", "list")
	for _, link := range []string{".claude/commands/leak.md", ".claude/commands/sub"} {
		if !strings.Contains(stderr, filepath.Join(r.dir, link)) || !strings.Contains(stderr, root) {
			t.Errorf("commands list does not name the skipped link %s and where it points:\n%s", link, stderr)
		}
	}
	if _, stderr, _ := r.run(t, "skills", "list"); !strings.Contains(stderr, filepath.Join(r.dir, ".agents/skills/leak")) {
		t.Errorf("skills list does not name the skipped link:\n%s", stderr)
	}
	stdout, _, _ := r.run(t, "--trust-project", "commands", "list")
	if !strings.Contains(stdout, "SECRETCOMMANDMARKER") || !strings.Contains(stdout, "SECRETDEEPMARKER") {
		t.Errorf("trusted for this run, the project's linked command files are not read:\n%s", stdout)
	}
	if stdout, stderr, _ := r.run(t, "--trust-project", "skills", "list"); !strings.Contains(stdout, "secret-skill") {
		t.Errorf("trusted for this run, the project's linked skill folder is not read:\n%s\n%s", stdout, stderr)
	}
	r.created()
}

// An untrusted project's agentpool.yaml is read only for what it declares itself: the files of
// its import key are named, not read (one that is not JSON does not make the config fail, and a
// file elsewhere shows none of its servers). agentpool trust reads them, to show what trusting
// would run; trusted, they are read and their servers start.
func TestUntrustedProjectImportsNotRead(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	elsewhere := t.TempDir()
	marker := filepath.Join(t.TempDir(), "imported")
	broken := filepath.Join(elsewhere, "broken.json")
	far := filepath.Join(elsewhere, "far.json")
	writeFile(t, broken, "not JSON at all {")
	writeFile(t, far, fmt.Sprintf(`{"mcpServers": {"farsrv": {"command": "sh", "args": ["-c", "touch %s; exec %s"]}}}`, marker, r.bin))
	f, err := os.OpenFile(filepath.Join(r.dir, "agentpool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "import: [%s]\n", broken)
	f.Close()
	_, stderr, _ := r.run(t, "skills", "list")
	if strings.Contains(stderr, "with errors") || strings.Contains(stderr, "not JSON") || !strings.Contains(stderr, "agentpool.yaml (1 server)") {
		t.Errorf("an untrusted project's import is read:\n%s", stderr)
	}
	if !strings.Contains(stderr, "import "+broken+": not read") {
		t.Errorf("skills list does not name the import it did not read:\n%s", stderr)
	}
	if _, stderr, code := r.run(t, "--trust-project", "skills", "list"); code == 0 || !strings.Contains(stderr, broken) {
		t.Errorf("trusted for the run, the project's broken import is not read (exit %d):\n%s", code, stderr)
	}

	r.writeConfig(t, "")
	f, err = os.OpenFile(filepath.Join(r.dir, "agentpool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "import: [%s]\n", far)
	f.Close()
	for _, args := range [][]string{{"skills", "list"}, {"tools", "list"}, {"commands", "list", "--json"}} {
		stdout, stderr, _ := r.run(t, args...)
		if strings.Contains(stdout+stderr, "farsrv") || !strings.Contains(stderr, "agentpool.yaml (1 server)") {
			t.Errorf("%v in an untrusted project reads its import:\n%s\n%s", args, stdout, stderr)
		}
	}
	if stdout, stderr, _ := r.run(t, "trust"); !strings.Contains(stdout+stderr, "farsrv") {
		t.Errorf("agentpool trust does not show the imported server it records:\n%s\n%s", stdout, stderr)
	}
	if _, stderr, _ := r.run(t, "tools", "list"); !fileExists(marker) {
		t.Errorf("trusted, the imported server did not start:\n%s", stderr)
	}
}

// fileExists reports whether path exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
