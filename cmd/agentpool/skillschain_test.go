package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServedSkillsChain: agentpool consumes what agentpool serves. An outer agentpool whose
// only MCP server is `agentpool serve --stdio` (serving the skill wave from a folder) lists
// wave as a remote skill of that server, and reads wave's notes.md through it — a file no
// resources/list names, that only the served SEP-2640 skills/list entry lists (mcpcap reads
// no skill file it was not told of), so this fails when serve's skills/list does.
func TestServedSkillsChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	skills := filepath.Join(dir, "skills")
	writeFile(t, filepath.Join(skills, "wave", "SKILL.md"), "---\nname: wave\ndescription: Waves.\n---\nWave at $ARGUMENTS.\n")
	writeFile(t, filepath.Join(skills, "wave", "notes.md"), "notes of wave\n")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  inner:\n    command: agentpool\n"+
		"    args: [--no-default-roots, --skills-dir, "+skills+", serve, --stdio]\n"+
		"    env: {HOME: "+dir+", XDG_CONFIG_HOME: "+os.Getenv("XDG_CONFIG_HOME")+", AGENTPOOL_TEST_PARENT: \"1\"}\n")
	outer := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("agentpool", append([]string{"--no-default-roots", "--config", cfg}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("agentpool %v: %v\n%s%s", args, err, out, stderr)
		}
		return string(out)
	}
	var list struct {
		Skills []skillJSON `json:"skills"`
	}
	if err := json.Unmarshal([]byte(outer("skills", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Skills) != 1 || list.Skills[0].Name != "wave" || list.Skills[0].URI != "skill://wave/SKILL.md" ||
		!list.Skills[0].Origin.Remote() || list.Skills[0].Origin.Location != "mcp://inner" {
		t.Fatalf("skills of the outer agentpool = %+v, want wave, remote, from mcp://inner", list.Skills)
	}
	if got := outer("resources", "read", "skill://wave/notes.md"); !strings.Contains(got, "notes of wave") {
		t.Errorf("read skill://wave/notes.md through the served skill = %q", got)
	}
}
