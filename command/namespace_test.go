package command

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// TestNamespacedCommands: a source with a namespace names every command "<ns>:<name>", nested
// ones "<ns>:<dir>:<name>", qualified "file:<ns>:<name>".
func TestNamespacedCommands(t *testing.T) {
	root := tempDir(t)
	writeFile(t, filepath.Join(root, "configure.md"), "---\ndescription: Configure.\n---\nConfigure $ARGUMENTS")
	writeFile(t, filepath.Join(root, "git", "commit.md"), "Commit")
	s := newSource(t, []string{root}, &FileOptions{Namespace: "a"})
	ctx := context.Background()
	cmds, err := s.ListCommands(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, c.Name+"="+c.QualifiedName)
	}
	if want := []string{"a:configure=file:a:configure", "a:git:commit=file:a:git:commit"}; !slices.Equal(got, want) {
		t.Fatalf("commands %v, want %v", got, want)
	}
	for _, name := range []string{"a:configure", "file:a:configure"} {
		out, err := s.GetCommand(ctx, &ext.CommandRequest{Name: name, Args: []string{"x"}})
		if err != nil || out.Text() != "Configure x" {
			t.Errorf("GetCommand(%s) = %v, %v", name, out, err)
		}
	}
	for _, bare := range []string{"configure", "file:configure", "git:commit"} {
		if _, ok := s.Command(bare); ok {
			t.Errorf("Command(%s) found a namespaced command by its bare name", bare)
		}
	}
	for _, ns := range []string{"A", "a_b", "-a", "a-", "a:b", "a b"} {
		if s, err := NewFileSource([]string{root}, &FileOptions{Namespace: ns}); err == nil || !strings.Contains(err.Error(), `"`+ns+`"`) {
			t.Errorf("namespace %q: err %v, want one naming it", ns, err)
			if s != nil {
				s.Close(ctx)
			}
		}
	}
}

// TestNamespacedCommandsInAView: configure.md in sources namespaced a and b and in a plain
// source are three commands in a view, with no collision.
func TestNamespacedCommandsInAView(t *testing.T) {
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { _ = reg.Close(context.Background()) })
	for _, ns := range []string{"a", "b", ""} {
		root := tempDir(t)
		writeFile(t, filepath.Join(root, "configure.md"), "Configure from "+ns)
		s, err := NewFileSource([]string{root}, &FileOptions{Name: "commands-" + ns, Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Register(s, ext.LevelPool, ext.Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := view.Compile(context.Background(), reg, ext.Scope{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range v.Commands {
		names = append(names, c.Name)
	}
	if want := []string{"a:configure", "b:configure", "configure"}; !slices.Equal(names, want) || len(v.Collisions) != 0 {
		t.Fatalf("commands %v, collisions %+v; want %v and none", names, v.Collisions, want)
	}
	out, err := v.GetCommand(context.Background(), &ext.CommandRequest{Name: "b:configure"})
	if err != nil || !strings.Contains(out.Text(), "Configure from b") {
		t.Errorf("/b:configure = %v, %v", out, err)
	}
}
