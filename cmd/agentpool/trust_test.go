package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// trustRepo is a cloned repository, as the acceptance of issue 8 describes it: a project skill
// whose frontmatter declares a server, another whose mcp.json does, a command file and an
// agentpool.yaml declaring a server; each server would touch its own marker file before it
// runs the fault server.
type trustRepo struct {
	dir, home, xdg string
	markers        []string // frontmatter, mcp.json, agentpool.yaml
	bin            string
}

func newTrustRepo(t *testing.T) *trustRepo {
	t.Helper()
	r := &trustRepo{dir: t.TempDir(), home: t.TempDir(), xdg: t.TempDir(), bin: testserver.Build(t)}
	marks := t.TempDir()
	for _, m := range []string{"front", "json", "config"} {
		r.markers = append(r.markers, filepath.Join(marks, m))
	}
	writeFile(t, filepath.Join(r.dir, ".agents/skills/front/SKILL.md"), fmt.Sprintf(`---
name: front
description: Declares its server in frontmatter.
mcp-servers:
  srv:
    command: sh
    args: ["-c", "touch %s; exec %s"]
---
Front body.
`, r.markers[0], r.bin))
	writeFile(t, filepath.Join(r.dir, ".claude/skills/jsonskill/SKILL.md"), "---\nname: jsonskill\ndescription: Declares its server in mcp.json.\n---\nJSON body.\n")
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"srv": map[string]any{
		"command": "sh", "args": []string{"-c", fmt.Sprintf("touch %s; exec %s", r.markers[1], r.bin)}}}})
	writeFile(t, filepath.Join(r.dir, ".claude/skills/jsonskill/mcp.json"), string(mcpJSON))
	writeFile(t, filepath.Join(r.dir, ".claude/commands/projcmd.md"), "---\ndescription: A project command.\n---\nDo $ARGUMENTS.\n")
	r.writeConfig(t, "")
	// The servers are shell wrappers that touch markers and run the fault server outside the
	// project, which a trusted project's default sandbox would refuse: the user's config turns
	// it off (the sandbox's own tests are elsewhere).
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "sandbox: off\n")
	return r
}

// writeConfig writes the project's agentpool.yaml; extra is appended to its server's command line.
func (r *trustRepo) writeConfig(t *testing.T, extra string) {
	t.Helper()
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), fmt.Sprintf(`mcp_servers:
  cfgsrv:
    command: sh
    args: ["-c", "touch %s; exec %s%s"]
`, r.markers[2], r.bin, extra))
}

// env is the environment of a run in the repository: HOME and XDG_CONFIG_HOME of its own.
func (r *trustRepo) env() []string {
	return append(os.Environ(), "HOME="+r.home, "XDG_CONFIG_HOME="+r.xdg)
}

// run runs the agentpool binary in the repository.
func (r *trustRepo) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Dir, cmd.Env = r.dir, r.env()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// watchBriefly runs `agentpool watch` until it says it is watching, then interrupts it.
func (r *trustRepo) watchBriefly(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("agentpool", append(args, "watch")...)
	cmd.Dir, cmd.Env = r.dir, r.env()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "watch to start", func() bool { return strings.Contains(stderr.String(), "watching") })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, "watch")
	return stderr.String()
}

// created returns the markers that exist, and removes them.
func (r *trustRepo) created() []string {
	var out []string
	for _, m := range r.markers {
		if _, err := os.Stat(m); err == nil {
			out = append(out, filepath.Base(m))
			os.Remove(m)
		}
	}
	return out
}

// projectView is what `compile --json` shows of the project.
func (r *trustRepo) projectView(t *testing.T, args ...string) (skills, commands []string) {
	t.Helper()
	stdout, stderr, _ := r.run(t, append(args, "compile", "--json")...)
	var v struct {
		Skills   []struct{ Name string } `json:"skills"`
		Commands []struct{ Name string } `json:"commands"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("compile --json: %v\nstdout %s\nstderr %s", err, stdout, stderr)
	}
	for _, s := range v.Skills {
		skills = append(skills, s.Name)
	}
	for _, c := range v.Commands {
		commands = append(commands, c.Name)
	}
	return skills, commands
}

// untrustedRuns runs every command of the acceptance in the repository and fails if any
// created a marker or put the project's skills or command into the view; each says once on
// stderr that the project was skipped, with want in the message.
func (r *trustRepo) untrustedRuns(t *testing.T, want string) {
	t.Helper()
	for _, args := range [][]string{
		{"tools", "list"},
		{"tools", "call", "front__echo", `{"text": "x"}`},
		{"tools", "call", "cfgsrv__echo", `{"text": "x"}`},
		{"tools", "call", "nope"},
		{"tools", "call", "load_skill", `{"name": "front"}`},
		{"compile"},
		{"read", "skill://front/SKILL.md"},
		{"commands", "run", "/projcmd", "it"},
	} {
		_, stderr, _ := r.run(t, args...)
		if m := r.created(); len(m) > 0 {
			t.Errorf("%s: created %v in an untrusted project; stderr:\n%s", args, m, stderr)
		}
		if n := strings.Count(stderr, want); n != 1 {
			t.Errorf("%s: stderr says %q %d times, want once:\n%s", args, want, n, stderr)
		}
	}
	stderr := r.watchBriefly(t)
	if m := r.created(); len(m) > 0 || strings.Count(stderr, want) != 1 {
		t.Errorf("watch: created %v; stderr:\n%s", m, stderr)
	}
	skills, commands := r.projectView(t)
	if slices.Contains(skills, "front") || slices.Contains(skills, "jsonskill") || slices.Contains(commands, "projcmd") {
		t.Errorf("untrusted project in the view: skills %v, commands %v", skills, commands)
	}
	if m := r.created(); len(m) > 0 {
		t.Errorf("compile --json: created %v", m)
	}
}

// trustedRuns checks that the project's servers start and its skills and command are in the
// view (args are global flags, e.g. --trust-project).
func (r *trustRepo) trustedRuns(t *testing.T, args ...string) {
	t.Helper()
	stdout, stderr, _ := r.run(t, append(args, "tools", "list")...)
	if m := r.created(); len(m) != 3 {
		t.Errorf("tools list in a trusted project: created %v, want all three; stdout %s\nstderr %s", m, stdout, stderr)
	}
	for _, tool := range []string{"front__echo", "jsonskill__echo", "cfgsrv__echo"} {
		if !strings.Contains(stdout, tool) {
			t.Errorf("trusted tools list lacks %s:\n%s", tool, stdout)
		}
	}
	if strings.Contains(stderr, "trust") {
		t.Errorf("a trusted run talks about trust:\n%s", stderr)
	}
	stdout, _, code := r.run(t, append(args, "tools", "call", "front__echo", `{"text": "hi"}`)...)
	if code != 0 || !strings.Contains(stdout, "hi") {
		t.Errorf("tools call front__echo: exit %d, stdout %s", code, stdout)
	}
	r.created()
	if stdout, _, _ := r.run(t, append(args, "skills", "list", "--json")...); strings.Contains(stdout, `"untrusted"`) ||
		!strings.Contains(stdout, filepath.Join(".claude/skills/jsonskill/SKILL.md")) {
		t.Errorf("trusted skills list --json: want the project's skills with their paths, none untrusted:\n%s", stdout)
	}
	skills, commands := r.projectView(t, args...)
	if !slices.Contains(skills, "front") || !slices.Contains(skills, "jsonskill") || !slices.Contains(commands, "projcmd") {
		t.Errorf("trusted project not in the view: skills %v, commands %v", skills, commands)
	}
	r.created()
}

// TestProjectTrustAcceptance is issue 8's acceptance for project trust, with the real binary:
// nothing the repository declares runs, and none of its skills or commands is in a view, until
// `agentpool trust`; a changed command asks again; --trust-project trusts one run; untrust
// forgets.
func TestProjectTrustAcceptance(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	r.untrustedRuns(t, "is not trusted: skipped 2 skills, 1 command file, agentpool.yaml (1 server)")

	// The inspection commands show the project's skills and command, marked.
	stdout, _, _ := r.run(t, "skills", "list")
	if !regexpMatch(`(?m)^front\s.*untrusted$`, stdout) || !regexpMatch(`(?m)^jsonskill\s.*untrusted$`, stdout) {
		t.Errorf("skills list does not mark the project's skills untrusted:\n%s", stdout)
	}
	stdout, _, _ = r.run(t, "skills", "list", "--json")
	if !strings.Contains(stdout, `"untrusted": true`) {
		t.Errorf("skills list --json has no untrusted field:\n%s", stdout)
	}
	stdout, _, _ = r.run(t, "commands", "list")
	if !regexpMatch(`(?m)^/projcmd\s.*untrusted$`, stdout) {
		t.Errorf("commands list does not mark the project's command untrusted:\n%s", stdout)
	}
	if m := r.created(); len(m) > 0 {
		t.Fatalf("listing created %v", m)
	}

	// trust prints what it would run, then records it.
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"front.srv (.agents/skills/front/SKILL.md): sh -c", "jsonskill.srv (.claude/skills/jsonskill/mcp.json): sh -c",
		"cfgsrv (agentpool.yaml): sh -c", filepath.Join(r.xdg, "agentpool", "trust.json")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("trust output lacks %q:\n%s", want, stdout)
		}
	}
	if m := r.created(); len(m) > 0 {
		t.Fatalf("trust itself created %v", m)
	}
	r.trustedRuns(t)

	// A changed command is untrusted again, saying so.
	r.writeConfig(t, " --log /dev/null")
	r.untrustedRuns(t, "changed since you trusted it (new or changed: cfgsrv)")

	// --trust-project: this run only.
	r.trustedRuns(t, "--trust-project")
	r.untrustedRuns(t, "changed since you trusted it")

	// untrust forgets.
	if _, _, code := r.run(t, "trust"); code != 0 {
		t.Fatal("trust again failed")
	}
	r.trustedRuns(t)
	if stdout, _, code := r.run(t, "untrust"); code != 0 || !strings.Contains(stdout, "no longer trusted") {
		t.Fatalf("untrust: exit %d: %s", code, stdout)
	}
	r.untrustedRuns(t, "is not trusted")
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// The user's own config ($XDG_CONFIG_HOME/agentpool/agentpool.yaml) is used while the project
// is untrusted; once it is trusted the project's agentpool.yaml adds its servers to the user's
// (a project server named like one of the user's is not used, and that is said once); a user
// skill and a project skill of one name: the user's wins (a clone cannot shadow your own skill).
func TestUserConfigAndPrecedence(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "sandbox: off\n"+
		"mcp_servers:\n  mine:\n    command: /nonexistent/server\n    lazy: true\n    tools: [{name: t, description: Mine.}]\n"+
		"  cfgsrv2:\n    command: /nonexistent/server\n    lazy: true\n    tools: [{name: u, description: Mine too.}]\n")
	r.writeConfig(t, "")
	f, err := os.OpenFile(filepath.Join(r.dir, "agentpool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "  cfgsrv2:\n    command: sh\n    args: [\"-c\", \"touch %s; exec %s\"]\n", r.markers[2], r.bin)
	f.Close()
	writeFile(t, filepath.Join(r.home, ".agents/skills/front/SKILL.md"), "---\nname: front\ndescription: The user's own front.\n---\nMine.\n")

	stdout, stderr, _ := r.run(t, "tools", "list")
	if !strings.Contains(stdout, "mine__t") || strings.Contains(stdout, "cfgsrv__") {
		t.Errorf("untrusted: tools list %s\nstderr %s; want the user's config's server only", stdout, stderr)
	}
	if _, _, code := r.run(t, "trust"); code != 0 {
		t.Fatal("trust failed")
	}
	stdout, stderr, _ = r.run(t, "tools", "list")
	if !strings.Contains(stdout, "mine__t") || !strings.Contains(stdout, "cfgsrv__echo") {
		t.Errorf("trusted: tools list %s\nstderr %s; want the user's servers and the project's", stdout, stderr)
	}
	if !strings.Contains(stdout, "cfgsrv2__u") || strings.Contains(stdout, "cfgsrv2__echo") {
		t.Errorf("trusted: tools list %s; want the user's cfgsrv2, not the project's", stdout)
	}
	if n := strings.Count(stderr, "mcp_servers.cfgsrv2 is not used"); n != 1 {
		t.Errorf("trusted: stderr says the project's cfgsrv2 is not used %d times, want once:\n%s", n, stderr)
	}
	r.created()
	stdout, _, _ = r.run(t, "compile", "--json")
	var v struct {
		Skills []struct {
			Name, Description, Capability string
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range v.Skills {
		if s.Name == "front" {
			found = true
			if s.Capability != "skills" || s.Description != "The user's own front." {
				t.Errorf("skill front comes from %s (%q), want the user's", s.Capability, s.Description)
			}
		}
	}
	if !found {
		t.Errorf("no skill front in the view: %s", stdout)
	}
	r.created()
}
