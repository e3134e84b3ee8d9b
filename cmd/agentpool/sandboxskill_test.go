package main

import (
	"fmt"
	"html"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// A skill's own stdio server is shown with its sandbox (the config's default with the skill's
// folder readable) by compile and on the status page, like a configured server, before any
// session runs it.
func TestSkillServerSandboxShown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	skills := filepath.Join(dir, "skills")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, fmt.Sprintf("sandbox: {read: [~/projects], network: none}\nskills:\n  dirs: [%s]\n  watch: false\n", skills))
	writeFile(t, filepath.Join(skills, "mailer", "SKILL.md"), fmt.Sprintf(`---
name: mailer
description: Sends mail.
mcp-servers:
  mail:
    command: %s
---
Mail.
`, testserver.Build(t)))
	want := "read ~/projects, " + filepath.Join(skills, "mailer") + "; write none; network none; profile auto"
	stdout, stderr, _ := runCLI(t, "--no-default-roots", "--config", cfg, "compile")
	_, section, _ := strings.Cut(stdout, "\n## sandboxes (")
	section, _, _ = strings.Cut(section, "\n\n")
	if r := rowOf(section, "mailer.mail"); !strings.Contains(r, want) {
		t.Errorf("compile's sandbox row of mailer.mail: %q, want %q; section:\n%s\nstderr:\n%s", r, want, section, stderr)
	}
	base, _ := startServeLogged(t, cfg)
	testwait.Within(t, time.Minute, "the status page's row of mailer.mail with its sandbox", func() bool {
		return strings.Contains(row(html.UnescapeString(httpGet(t, base+"/")), "server", "<code>mailer.mail</code>"), want)
	})
}
