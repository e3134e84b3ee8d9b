package command

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// With Confine, a command file, a folder of command files or a root that links out of the
// confining folder is not read, and each link is a warning naming where it points; links inside
// it are followed. Without Confine, every link is followed as before.
func TestConfineLinksOut(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.md"), "SECRET first line\n")
	writeFile(t, filepath.Join(outside, "cmds/deep.md"), "DEEP first line\n")
	writeFile(t, filepath.Join(proj, "cmds/own.md"), "Own.\n")
	writeFile(t, filepath.Join(proj, "elsewhere/shared.md"), "Shared.\n")
	for link, target := range map[string]string{
		"cmds/leak.md":   filepath.Join(outside, "secret.md"),
		"cmds/sub":       filepath.Join(outside, "cmds"),
		"cmds/inside.md": filepath.Join(proj, "elsewhere/shared.md"),
		"cmds/in":        filepath.Join(proj, "elsewhere"),
		"rootlink":       filepath.Join(outside, "cmds"),
	} {
		if err := os.Symlink(target, filepath.Join(proj, link)); err != nil {
			t.Fatal(err)
		}
	}
	roots := []string{filepath.Join(proj, "cmds"), filepath.Join(proj, "rootlink")}
	for _, c := range []struct {
		confine string
		want    []string
	}{
		{proj, []string{"in:shared", "inside", "own"}},
		{"", []string{"deep", "in:shared", "inside", "leak", "own", "sub:deep"}},
	} {
		s, err := NewFileSource(roots, &FileOptions{Confine: c.confine})
		if err != nil {
			t.Fatal(err)
		}
		cmds, _ := s.ListCommands(context.Background())
		var names []string
		for _, e := range cmds {
			names = append(names, e.Name)
			if c.confine != "" && strings.Contains(e.Description, "SECRET") {
				t.Errorf("confined: %s read outside: %q", e.Name, e.Description)
			}
		}
		if !slices.Equal(names, c.want) {
			t.Errorf("confine %q: commands %v, want %v", c.confine, names, c.want)
		}
		var warned []string
		for _, d := range s.Diagnostics() {
			warned = append(warned, d.String())
		}
		if c.confine != "" {
			for _, link := range []string{"cmds/leak.md", "cmds/sub", "rootlink"} {
				if !slices.ContainsFunc(warned, func(w string) bool {
					return strings.HasPrefix(w, filepath.Join(proj, link)+": warning:") && strings.Contains(w, outside) && strings.Contains(w, "not read")
				}) {
					t.Errorf("no warning naming %s and where it points: %q", link, warned)
				}
			}
		} else if len(warned) != 0 {
			t.Errorf("not confined: diagnostics %q", warned)
		}
		if c.confine != "" {
			// A file that became a link out since the scan is not read either.
			own := filepath.Join(proj, "cmds/own.md")
			os.Remove(own)
			if err := os.Symlink(filepath.Join(outside, "secret.md"), own); err != nil {
				t.Fatal(err)
			}
			if p, err := s.GetCommand(context.Background(), &ext.CommandRequest{Name: "own"}); err == nil {
				t.Errorf("a command file swapped for a link out is read: %v", p)
			}
			os.Remove(own)
			writeFile(t, own, "Own.\n")
		}
		s.Close(context.Background())
	}
}

// With Confine and Watch, the watcher follows no link out of the confining folder either: a
// folder linking out (to a big tree such as /) adds no watch there.
func TestConfineWatchStaysInside(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "a/b/c.md"), "Far.\n")
	writeFile(t, filepath.Join(proj, "cmds/in/own.md"), "Own.\n")
	if err := os.Symlink(outside, filepath.Join(proj, "cmds", "out")); err != nil {
		t.Fatal(err)
	}
	s, err := NewFileSource([]string{filepath.Join(proj, "cmds")}, &FileOptions{Watch: true, Confine: proj})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	realOut, err := filepath.EvalSymlinks(outside)
	if err != nil {
		t.Fatal(err)
	}
	var in, out []string
	for _, d := range s.watcher.Watched() {
		real, err := filepath.EvalSymlinks(d)
		switch {
		case err != nil:
		case real == realOut || strings.HasPrefix(real, realOut+string(filepath.Separator)):
			out = append(out, d)
		default:
			in = append(in, d)
		}
	}
	if len(out) > 0 || !slices.ContainsFunc(in, func(d string) bool { return filepath.Base(d) == "in" }) {
		t.Errorf("watched outside the confining folder %v, inside %v; want none outside, cmds/in inside", out, in)
	}
}
