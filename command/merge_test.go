package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/ext"
)

// fakeSource is an in-memory CommandResource whose GetCommand echoes who answered.
type fakeSource struct {
	name    string
	entries []ext.CommandEntry
	listErr error
	got     []string // names GetCommand was called with
}

func (f *fakeSource) Name() string { return f.name }

func (f *fakeSource) ListCommands(context.Context) ([]ext.CommandEntry, error) {
	if f.listErr != nil {
		return nil, f.listErr
	}
	return f.entries, nil
}

func (f *fakeSource) GetCommand(_ context.Context, name string, args []string) (string, error) {
	f.got = append(f.got, name)
	for _, e := range f.entries {
		if e.Name == name || e.QualifiedName == name {
			return fmt.Sprintf("%s/%s %s", f.name, e.Name, strings.Join(args, "|")), nil
		}
	}
	return "", fmt.Errorf("%s: %q: %w", f.name, name, ext.ErrNotFound)
}

func entry(source, name string) ext.CommandEntry {
	q := source + ":" + name
	if source == SourceMCP {
		q = name // MCP prompts are already <server>:<prompt>
	}
	return ext.CommandEntry{Name: name, QualifiedName: q, Source: source}
}

func TestListAndRunWithCollisions(t *testing.T) {
	ctx := context.Background()
	// Sources are given in an order that disagrees with precedence: mcp, skill, file.
	mcp := &fakeSource{name: "mcp", entries: []ext.CommandEntry{entry(SourceMCP, "review"), entry(SourceMCP, "everything:simple")}}
	skills := &fakeSource{name: "skills", entries: []ext.CommandEntry{entry(SourceSkill, "pdf"), entry(SourceSkill, "review")}}
	files := &fakeSource{name: "files", entries: []ext.CommandEntry{entry(SourceFile, "review"), entry(SourceFile, "frontend:component")}}
	sources := []ext.CommandResource{mcp, skills, files}

	list, collisions, err := List(ctx, sources)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name+"<"+e.Source)
	}
	want := []string{"everything:simple<mcp", "frontend:component<file", "pdf<skill", "review<file", "skill:review<skill"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("List names (-want +got):\n%s", diff)
	}
	// The MCP "review" has QualifiedName "review" (its own name), which the winner holds: it is
	// reported but cannot be listed under another name.
	var got []string
	for _, c := range collisions {
		got = append(got, c.Name+": "+c.Winner.Source+" > "+c.Loser.Source)
	}
	if diff := cmp.Diff([]string{"review: file > skill", "review: file > mcp"}, got); diff != "" {
		t.Errorf("collisions (-want +got):\n%s", diff)
	}

	run := func(line string) string {
		t.Helper()
		out, err := Run(ctx, sources, line)
		if err != nil {
			t.Fatalf("Run(%q): %v", line, err)
		}
		return out
	}
	if got := run("/review 'a b' c"); got != "files/review a b|c" {
		t.Errorf("winner: %q", got)
	}
	if got := run("/skill:review x"); got != "skills/review x" {
		t.Errorf("loser by qualified name: %q", got)
	}
	if got := run("/file:review"); got != "files/review " {
		t.Errorf("winner by qualified name: %q", got)
	}
	if got := run("/everything:simple"); got != "mcp/everything:simple " {
		t.Errorf("mcp prompt: %q", got)
	}
	if skills.got[len(skills.got)-1] != "review" {
		t.Errorf("owning source got %q, want the plain name", skills.got)
	}

	_, err = Run(ctx, sources, "/nope arg")
	if !errors.Is(err, ext.ErrNotFound) || !strings.Contains(err.Error(), "/nope") {
		t.Errorf("unknown command: %v", err)
	}
	if _, err := Run(ctx, sources, "/review 'open"); !errors.Is(err, cmdline.ErrSyntax) {
		t.Errorf("bad quoting: %v", err)
	}
}

func TestSameSourceKindOrderedBySourceOrder(t *testing.T) {
	a := &fakeSource{name: "a", entries: []ext.CommandEntry{{Name: "x", Source: SourceSkill}}}
	b := &fakeSource{name: "b", entries: []ext.CommandEntry{{Name: "x", Source: SourceSkill}}}
	// No QualifiedName and an unknown source kind: still reachable.
	c := &fakeSource{name: "c", entries: []ext.CommandEntry{{Name: "x"}}}
	sources := []ext.CommandResource{a, b, c}
	list, collisions, err := List(context.Background(), sources)
	if err != nil {
		t.Fatal(err)
	}
	if len(collisions) != 2 || collisions[0].Winner.Source != SourceSkill {
		t.Fatalf("collisions: %v", collisions)
	}
	if out, _ := Run(context.Background(), sources, "/x"); out != "a/x " {
		t.Errorf("first source should win: %q", out)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
	}
	// b's qualified name is "skill:x"; c has neither source nor qualified name.
	if diff := cmp.Diff([]string{"skill:x", "x"}, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if out, err := Run(context.Background(), sources, "/source2:x"); err != nil || out != "c/x " {
		t.Errorf("unnamed source reachable by position: %q, %v", out, err)
	}
	for _, col := range collisions {
		if col.String() == "" {
			t.Error("empty collision string")
		}
	}
}

func TestFailingSourceDoesNotHideOthers(t *testing.T) {
	boom := errors.New("server crashed")
	bad := &fakeSource{name: "broken", listErr: boom}
	good := &fakeSource{name: "good", entries: []ext.CommandEntry{entry(SourceFile, "ok")}}
	sources := []ext.CommandResource{bad, good}
	list, _, err := List(context.Background(), sources)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "broken") {
		t.Errorf("error = %v, want the broken source's error named", err)
	}
	if len(list) != 1 || list[0].Name != "ok" {
		t.Errorf("list = %v", list)
	}
	if out, err := Run(context.Background(), sources, "/ok"); err != nil || out != "good/ok " {
		t.Errorf("Run with a broken source: %q, %v", out, err)
	}
	_, err = Run(context.Background(), sources, "/missing")
	if !errors.Is(err, ext.ErrNotFound) || !errors.Is(err, boom) {
		t.Errorf("unknown command with a broken source: %v", err)
	}
}
