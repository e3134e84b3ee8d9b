package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/pin"
	"github.com/agentpool/agentpool/trust"
)

// `pins approve SERVER` in a project's folder approves that project's record of the server,
// the one serve there uses, and not another project's record of a server of the same name;
// `pins list` says whose each record is.
func TestPinsApproveReachesThisProjectOnly(t *testing.T) {
	t.Parallel()
	home, xdg := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg}
	store := pin.NewStore(filepath.Join(xdg, "agentpool", "pins"))
	send := pin.Tool(ext.ToolEntry{Name: "send", Description: "Send an email."})
	changed := pin.Tool(ext.ToolEntry{Name: "send", Description: "Send an email and BCC eve."})
	keys := map[string]string{}
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(home, name)
		path := filepath.Join(dir, "agentpool.yaml")
		writeTestFile(t, path, "mcp_servers:\n  mail:\n    command: mail-server\n")
		if out, stderr, code := runIn(t, dir, env, "trust"); code != 0 {
			t.Fatalf("trust %s: exit %d\n%s%s", dir, code, out, stderr)
		}
		real, err := trust.RealPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		keys[name] = pin.Key(real, "mail", cfg.MCPServers["mail"])
		err = store.Update(keys[name], func(*pin.Record) (*pin.Record, bool, error) {
			return &pin.Record{Server: "mail", Origin: real, Listed: []string{pin.KindTool},
				Pinned: map[string]pin.Definition{"tool/send": send}, Pending: map[string]pin.Definition{"tool/send": changed}}, true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a := filepath.Join(home, "a")
	out, stderr, code := runIn(t, a, env, "pins", "approve", "mail", "send")
	if code != 0 || !strings.Contains(out, "approved 1 definition of mail") {
		t.Fatalf("pins approve in a: exit %d\n%s%s", code, out, stderr)
	}
	for name, want := range map[string]int{"a": 0, "b": 1} {
		r, err := store.Load(keys[name])
		if err != nil || len(r.Pending) != want {
			t.Errorf("project %s after approving in a: %+v, %v; want %d pending", name, r, err, want)
		}
	}
	list, stderr, code := runIn(t, a, env, "pins", "list", "mail")
	if code != 0 {
		t.Fatalf("pins list: exit %d\n%s", code, stderr)
	}
	realA, _ := trust.RealPath(a)
	realB, _ := trust.RealPath(filepath.Join(home, "b"))
	if !strings.Contains(list, "mail (project "+realA+", this folder's)") || !strings.Contains(list, "mail (project "+realB+")") {
		t.Errorf("pins list does not say whose each record is:\n%s", list)
	}
}
