package launch

import (
	"os/exec"
	"strings"
	"testing"
)

// The launcher's program imports nothing beyond the standard library's packages without
// costly initialisation and x/sys: every package it imports is initialised before each
// sandboxed server starts.
func TestLauncherImportsLittle(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/agentpool/agentpool/cmd/agentpool-sandbox").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch {
		case pkg == "golang.org/x/sys/unix", strings.HasPrefix(pkg, "github.com/agentpool/agentpool/sandbox/launch"),
			pkg == "github.com/agentpool/agentpool/cmd/agentpool-sandbox":
		case strings.Contains(strings.Split(pkg, "/")[0], "."):
			t.Errorf("the launcher imports %s, outside the standard library", pkg)
		case strings.HasPrefix(pkg, "net") || strings.HasPrefix(pkg, "crypto") || strings.HasPrefix(pkg, "log") ||
			strings.HasPrefix(pkg, "text/") || strings.HasPrefix(pkg, "html") || pkg == "encoding/gob" || pkg == "regexp":
			t.Errorf("the launcher imports %s, whose initialisation every sandboxed start would pay", pkg)
		}
	}
}

// A launch is read as the assembly entry reads it: the marker of this format only, a
// descriptor of decimal digits (or NoRules), no namespaces to make, then the server; anything
// else is refused in one line naming what was wrong, namespaces included (the Go code cannot
// make them).
func TestCheck(t *testing.T) {
	fd, path, argv, refusal := check([]string{Marker, "3", NoNamespaces, NoNamespaces, "/bin/x", "x", "-a"})
	if fd != 3 || path != "/bin/x" || len(argv) != 2 || argv[1] != "-a" || refusal != "" {
		t.Errorf("check = %d, %q, %q, %q", fd, path, argv, refusal)
	}
	if fd, _, _, refusal := check([]string{Marker, NoRules, NoNamespaces, NoNamespaces, "/bin/x"}); fd != -1 || refusal != "" {
		t.Errorf("with NoRules: %d, %q", fd, refusal)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__agentpool-sandbox", "/bin/x", "x"}, "launched as __agentpool-sandbox, this launcher reads " + Marker + ": agentpool and agentpool-sandbox come from different builds"},
		{[]string{Marker, "3"}, "bad launch: no server to execute"},
		{[]string{Marker, Probe}, "bad launch: no server to execute"},
		{[]string{Marker, "3", NoNamespaces, NoNamespaces}, "bad launch: no server to execute"},
		{[]string{Marker, "+3", NoNamespaces, NoNamespaces, "/bin/x"}, "bad rule set descriptor +3"},
		{[]string{Marker, "", NoNamespaces, NoNamespaces, "/bin/x"}, "bad rule set descriptor "},
		{[]string{Marker, "1234567890", NoNamespaces, NoNamespaces, "/bin/x"}, "bad rule set descriptor 1234567890"},
		{[]string{Marker, "3", "1000 1000 1", "1000 1000 1", "/bin/x"}, "namespaces asked of a launcher that cannot make them (only the assembly entry can): agentpool and agentpool-sandbox disagree"},
	} {
		if _, _, _, refusal := check(c.args); refusal != c.want {
			t.Errorf("check(%q) refuses %q, want %q", c.args, refusal, c.want)
		}
	}
}
