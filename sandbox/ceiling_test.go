package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// A path a foreign declaration was allowed because it lay beneath its ceiling is checked again
// when the server starts: a symbolic link made there since (by the server itself, which may
// write its folder) that leads out of the ceiling is not granted.
func TestCeilingCheckedAtStart(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	no := false
	ceiling := &decl.Sandbox{Write: []string{proj}, Required: &no}
	if err := os.Mkdir(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	asked := &decl.Sandbox{Read: []string{filepath.Join(proj, "data"), "sub"}, Write: []string{"out"}}
	box, refused := asked.Within(ceiling, "/nonexistent-home", proj)
	if len(refused) != 0 {
		t.Fatalf("refused %v of a declaration inside its ceiling", refused)
	}
	for _, l := range []string{"data", "out"} {
		if err := os.Symlink(outside, filepath.Join(proj, l)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("/bin/true")
	cmd.Dir = proj
	p := Resolve("proj", box, cmd)
	for _, l := range []string{"data", "out"} {
		if w := filepath.Join(proj, l); contains(p.Read, w) || contains(p.Write, w) {
			t.Errorf("%s, now a link to %s, granted: read %v, write %v", w, outside, p.Read, p.Write)
		}
	}
	if !contains(p.Read, filepath.Join(proj, "sub")) {
		t.Errorf("read %v lacks %s, still inside the ceiling", p.Read, filepath.Join(proj, "sub"))
	}
}

// A foreign declaration's cwd is readable only where its ceiling lets it read: a cwd outside
// (the home folder, say) does not make that folder readable.
func TestCeilingBoundsCwd(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	no := false
	ceiling := &decl.Sandbox{Write: []string{proj}, Exec: []string{proj}, Required: &no}
	box, _ := (&decl.Sandbox{}).Within(ceiling, "/nonexistent-home", outside)
	var cmd *exec.Cmd
	sub := filepath.Join(proj, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	undeclared, _ := (*decl.Sandbox)(nil).Within(ceiling, "/nonexistent-home", outside)
	for _, b := range []*decl.Sandbox{box, undeclared} {
		cmd = exec.Command("/bin/true")
		cmd.Dir = outside
		if p := Resolve("proj", b, cmd); contains(p.Read, outside) {
			t.Errorf("cwd %s outside the ceiling readable: %v", outside, p.Read)
		}
		cmd.Dir = sub
		if p := Resolve("proj", b, cmd); !contains(p.Read, sub) {
			t.Errorf("cwd %s inside the ceiling not readable: %v", sub, p.Read)
		}
	}
	cmd.Dir = outside
	if p := Resolve("own", &decl.Sandbox{}, cmd); !contains(p.Read, outside) {
		t.Errorf("the user's own server's cwd %s not readable: %v", outside, p.Read)
	}
}

// A home folder reached through a symbolic link (/home a link to /data/home) is still the home
// folder: a runtime in ~/bin or ~/.local/bin gets its binary, not the folder above it, and a
// script in ~ is its code alone.
func TestRuntimeUnderLinkedHome(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "data", "u")
	home := filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(real, "bin"), filepath.Join(real, ".local", "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, home); err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{filepath.Join(home, "bin", "node"), filepath.Join(home, ".local", "bin", "node")} {
		if err := os.WriteFile(realPath(bin), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		var g grants
		g.runtime(target{home: home}, bin)
		for _, p := range slices.Concat(g.read, g.exec) {
			if p != bin && p != realPath(bin) {
				t.Errorf("runtime %s granted %s, beyond its binary", bin, p)
			}
		}
	}
	script := filepath.Join(home, "server.js")
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := codeRoot(realPath(script), home); r != realPath(script) {
		t.Errorf("the code of %s is %s, want the file alone", realPath(script), r)
	}
}
