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

// A launch survives its encoding, and one of another format is refused naming both formats.
func TestEncodeDecode(t *testing.T) {
	in := Rules{ABI: 7, Read: []string{"/a b", "/ü\n"}, Write: []string{"/t"}, Exec: []string{"/x"}, Connect: true, Ports: []uint16{443}}
	s, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	r, err := decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.ABI != 7 || len(r.Read) != 2 || r.Read[1] != "/ü\n" || !r.Connect || r.Ports[0] != 443 || r.Exec[0] != "/x" || r.Write[0] != "/t" {
		t.Errorf("decoded %+v from %s", r, s)
	}
	if _, err := decode(`{"v":99}`); err == nil || !strings.Contains(err.Error(), "different builds") {
		t.Errorf("a launch of format 99: %v", err)
	}
}
