package skill

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
)

// recorder collects change events without blocking the producer.
type recorder struct {
	mu     sync.Mutex
	events []ext.ChangeEvent
}

func record(m *Manager) *recorder {
	r := &recorder{}
	m.Observe(func(ev ext.ChangeEvent) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	})
	return r
}

// mark returns a position in the event log: events after it are "new".
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// since returns the events recorded after mark.
func (r *recorder) since(mark int) []ext.ChangeEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events[mark:])
}

// waitEvents waits until every one of evs was recorded after mark, and returns the events
// recorded after mark.
func waitEvents(t *testing.T, r *recorder, mark int, evs ...ext.ChangeEvent) []ext.ChangeEvent {
	t.Helper()
	var seen []ext.ChangeEvent
	testwait.For(t, fmt.Sprintf("events %+v", evs), func() bool {
		seen = r.since(mark)
		for _, ev := range evs {
			if !slices.Contains(seen, ev) {
				return false
			}
		}
		return true
	})
	return seen
}

func description(m *Manager, name string) string {
	list, _ := m.ListSkills(context.Background())
	for _, e := range list {
		if e.Name == name {
			return e.Description
		}
	}
	return ""
}

func readText(m *Manager, uri string) string {
	rc, err := m.ReadSkill(context.Background(), uri)
	if err != nil || len(rc) != 1 {
		return ""
	}
	return rc[0].Text
}

// TestHotReload follows one skill through creation, edits, an editor-style save, a rename and
// deletion, with real files and the real watcher.
func TestHotReload(t *testing.T) {
	root := t.TempDir()
	write(t, root, "keep/SKILL.md", skillMD("name: keep\ndescription: Stays.\n", "Body"))
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 100 * time.Millisecond})
	r := record(m)
	const uri = "skill://fresh/SKILL.md"
	ev := func(kind ext.ChangeKind, uri string) ext.ChangeEvent {
		return ext.ChangeEvent{Capability: "skills", Kind: kind, SourceURI: uri}
	}

	// Created after start-up.
	at := r.mark()
	p := write(t, root, "fresh/SKILL.md", skillMD("name: fresh\ndescription: Version one.\n", "Body one"))
	testwait.For(t, "new skill listed", func() bool { return description(m, "fresh") == "Version one." })
	waitEvents(t, r, at, ev(ext.SkillsChanged, uri), ev(ext.CommandsChanged, ""), ev(ext.ResourcesChanged, uri))

	// Edited in place.
	at = r.mark()
	write(t, root, "fresh/SKILL.md", skillMD("name: fresh\ndescription: Version two.\n", "Body two"))
	testwait.For(t, "edit visible", func() bool {
		return description(m, "fresh") == "Version two." && strings.Contains(readText(m, uri), "Body two")
	})
	waitEvents(t, r, at, ev(ext.SkillsChanged, uri), ev(ext.CommandsChanged, ""))
	if body, _ := m.GetCommand(context.Background(), &ext.CommandRequest{Name: "fresh", Args: nil}); body.Text() != "Body two" {
		t.Errorf("command body after edit = %q", body.Text())
	}

	// Editor-style save: write a temporary file, rename it over SKILL.md.
	at = r.mark()
	tmp := write(t, root, "fresh/.SKILL.md.swp", skillMD("name: fresh\ndescription: Version three.\n", "Body three"))
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "editor-style save visible", func() bool {
		return description(m, "fresh") == "Version three." && strings.Contains(readText(m, uri), "Body three")
	})
	waitEvents(t, r, at, ev(ext.SkillsChanged, uri))

	// A supporting file changes: resources_changed names it, the skill itself did not change.
	at = r.mark()
	write(t, root, "fresh/references/notes.md", "notes")
	for _, e := range waitEvents(t, r, at, ev(ext.ResourcesChanged, "skill://fresh/references/notes.md")) {
		if e.Kind == ext.SkillsChanged || e.Kind == ext.CommandsChanged {
			t.Errorf("a reference file edit emitted %v", e)
		}
	}

	// Renamed: the folder moves and the frontmatter name follows it.
	at = r.mark()
	if err := os.Rename(filepath.Join(root, "fresh"), filepath.Join(root, "renamed")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "renamed/SKILL.md", skillMD("name: renamed\ndescription: Version four.\n", "Body four"))
	testwait.For(t, "rename visible", func() bool {
		return description(m, "renamed") == "Version four." && description(m, "fresh") == ""
	})
	if got := readText(m, "skill://renamed/references/notes.md"); got != "notes" {
		t.Errorf("renamed skill's file = %q", got)
	}
	if _, err := m.ReadSkill(context.Background(), uri); err == nil {
		t.Errorf("old URI still readable after rename")
	}
	waitEvents(t, r, at, ev(ext.CommandsChanged, ""))

	// Deleted.
	at = r.mark()
	if err := os.RemoveAll(filepath.Join(root, "renamed")); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "deletion visible", func() bool { return description(m, "renamed") == "" })
	waitEvents(t, r, at, ev(ext.SkillsChanged, "skill://renamed/SKILL.md"), ev(ext.CommandsChanged, ""))
	if description(m, "keep") != "Stays." {
		t.Errorf("untouched skill lost")
	}
}

// TestHotReloadRootAppears watches a root that does not exist at start-up.
func TestHotReloadRootAppears(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, ".agents", "skills")
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 100 * time.Millisecond})
	r := record(m)
	write(t, root, "late/SKILL.md", skillMD("name: late\ndescription: Came later.\n", "Body"))
	testwait.For(t, "skill in a root created after start", func() bool { return description(m, "late") == "Came later." })
	// load_skill appears with the first skill.
	waitEvents(t, r, 0, ext.ChangeEvent{Capability: "skills", Kind: ext.ToolsChanged})
}

// TestHotReloadBrokenEdit keeps the rest loaded when a skill is broken, and brings it back.
func TestHotReloadBrokenEdit(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/SKILL.md", skillMD("name: a\ndescription: A.\n", "Body"))
	write(t, root, "b/SKILL.md", skillMD("name: b\ndescription: B.\n", "Body"))
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 100 * time.Millisecond})
	write(t, root, "a/SKILL.md", "---\nname: a\ndescription: [broken\n---\n")
	testwait.For(t, "broken skill dropped with a diagnostic", func() bool {
		for _, d := range m.Diagnostics() {
			if d.Severity == SeverityError && strings.Contains(d.Path, filepath.Join("a", "SKILL.md")) {
				return description(m, "a") == ""
			}
		}
		return false
	})
	if description(m, "b") != "B." {
		t.Errorf("other skill lost")
	}
	write(t, root, "a/SKILL.md", skillMD("name: a\ndescription: A again.\n", "Body"))
	testwait.For(t, "repaired skill back", func() bool { return description(m, "a") == "A again." && len(m.Diagnostics()) == 0 })
}

// TestHotReloadRapidEdits makes 200 quick edits of one SKILL.md: the last content must be
// visible and the events few.
func TestHotReloadRapidEdits(t *testing.T) {
	root := t.TempDir()
	p := write(t, root, "busy/SKILL.md", skillMD("name: busy\ndescription: Edit 0.\n", "Body 0"))
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 200 * time.Millisecond})
	r := record(m)
	for i := 1; i <= 200; i++ {
		// Same length every time for i >= 100, so only the watcher can tell these edits apart.
		if err := os.WriteFile(p, []byte(skillMD(fmt.Sprintf("name: busy\ndescription: Edit %03d.\n", i), fmt.Sprintf("Body %03d", i))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testwait.For(t, "last edit visible", func() bool {
		return description(m, "busy") == "Edit 200." && strings.Contains(readText(m, "skill://busy/SKILL.md"), "Body 200")
	})
	if body, _ := m.GetCommand(context.Background(), &ext.CommandRequest{Name: "busy", Args: nil}); body.Text() != "Body 200" {
		t.Errorf("body = %q", body.Text())
	}
	// A second skill, added after the edits, is seen after any trailing batch of them: its
	// skills_changed (its own, or one shared with a trailing batch: no single SourceURI) comes
	// last. Every other skills_changed is the edits'.
	write(t, root, "quiet/SKILL.md", skillMD("name: quiet\ndescription: Q.\n", "Body"))
	quietURI := uriBase("quiet") + "/SKILL.md"
	testwait.For(t, "the second skill's skills_changed", func() bool {
		for _, ev := range r.since(0) {
			if ev.Kind == ext.SkillsChanged && (ev.SourceURI == quietURI || ev.SourceURI == "") {
				return true
			}
		}
		return false
	})
	n := 0
	for _, ev := range r.since(0) {
		if ev.Kind == ext.SkillsChanged && ev.SourceURI != quietURI {
			n++
		}
	}
	if n < 1 || n > 10 {
		t.Errorf("200 rapid edits gave %d skills_changed events, want 1..10", n)
	}
}

// TestHotReloadLoadSkillFollowsInvocability checks that tools_changed follows load_skill: it
// goes away when the last model-invocable skill is marked disable-model-invocation, and comes
// back when the mark is removed.
func TestHotReloadLoadSkillFollowsInvocability(t *testing.T) {
	root := t.TempDir()
	write(t, root, "only/SKILL.md", skillMD("name: only\ndescription: d\n", "Body"))
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 20 * time.Millisecond})
	r := record(m)
	ctx := context.Background()
	for _, disabled := range []bool{true, false} {
		mark := r.mark()
		write(t, root, "only/SKILL.md", skillMD(fmt.Sprintf("name: only\ndescription: d\ndisable-model-invocation: %v\n", disabled), "Body"))
		waitEvents(t, r, mark, ext.ChangeEvent{Capability: "skills", Kind: ext.ToolsChanged})
		tools, _ := m.Tools(ctx)
		if offered := len(tools) == 1; offered == disabled {
			t.Errorf("disabled %v: tools = %v", disabled, tools)
		}
	}
}

// TestHotReloadLargeEditNamesPrefixes: a batch touching more files than maxURIEvents names the
// folder of each skill it touched (a skill:// URI ending in "/", standing for every URI under
// it); one touching more skills than that names "skill://", every skill of the manager.
func TestHotReloadLargeEditNamesPrefixes(t *testing.T) {
	root := t.TempDir()
	write(t, root, "big/SKILL.md", skillMD("name: big\ndescription: Big.\n", "Body"))
	write(t, root, "quiet/SKILL.md", skillMD("name: quiet\ndescription: Quiet.\n", "Body"))
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 300 * time.Millisecond})
	r := record(m)
	ev := func(uri string) ext.ChangeEvent {
		return ext.ChangeEvent{Capability: "skills", Kind: ext.ResourcesChanged, SourceURI: uri}
	}
	resources := func(evs []ext.ChangeEvent) []string {
		var uris []string
		for _, e := range evs {
			if e.Kind == ext.ResourcesChanged {
				uris = append(uris, e.SourceURI)
			}
		}
		return uris
	}

	at := r.mark()
	for i := range 2 * maxURIEvents {
		write(t, root, fmt.Sprintf("big/references/r%02d.md", i), "ref")
	}
	if got := resources(waitEvents(t, r, at, ev("skill://big/"))); !slices.Equal(got, []string{"skill://big/"}) {
		t.Errorf("resources_changed URIs = %q, want only the folder of big", got)
	}

	at = r.mark()
	for i := range maxURIEvents + 1 {
		write(t, root, fmt.Sprintf("s%02d/SKILL.md", i), skillMD(fmt.Sprintf("name: s%02d\ndescription: New.\n", i), "Body"))
	}
	if got := resources(waitEvents(t, r, at, ev("skill://"))); !slices.Equal(got, []string{"skill://"}) {
		t.Errorf("resources_changed URIs = %q, want only skill://", got)
	}
}

// TestRescanNamesSkillsUnderAChangedFolder: a batch naming a folder that holds skill folders
// (a root the watcher walks again after its event queue overflowed, reported beside the few
// files it caught) names each skill under it by its folder, "skill://<name>/", since any of
// their files may have changed unseen.
func TestRescanNamesSkillsUnderAChangedFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, "big/SKILL.md", skillMD("name: big\ndescription: Big.\n", "Body"))
	write(t, root, "quiet/SKILL.md", skillMD("name: quiet\ndescription: Quiet.\n", "Body"))
	m := newTestManager(t, &Options{Roots: []string{root}})
	r := record(m)
	seen := write(t, root, "quiet/notes.md", "seen")
	write(t, root, "big/references/unseen.md", "unseen")
	m.onFiles([]string{root, seen})
	var got []string
	for _, e := range r.since(0) {
		if e.Kind == ext.ResourcesChanged {
			got = append(got, e.SourceURI)
		}
	}
	slices.Sort(got)
	if want := []string{"skill://big/", "skill://quiet/", "skill://quiet/notes.md"}; !slices.Equal(got, want) {
		t.Errorf("resources_changed URIs = %q, want %q", got, want)
	}
}

// TestHotReloadMovedFolderNamesItsFiles: a folder moved or removed inside a skill is reported by
// its own path alone, so the batch names it as a prefix ("skill://<name>/<folder>/"), standing
// for the files that were under it; and a skill folder reported changed as a whole (a root that
// is a skill, walked again after an overflow) names the whole skill, "skill://<name>/".
func TestHotReloadMovedFolderNamesItsFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/SKILL.md", skillMD("name: a\ndescription: A.\n", "Body"))
	write(t, root, "a/refs/x.md", "x")
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 100 * time.Millisecond})
	r := record(m)
	ev := func(uri string) ext.ChangeEvent {
		return ext.ChangeEvent{Capability: "skills", Kind: ext.ResourcesChanged, SourceURI: uri}
	}
	at := r.mark()
	if err := os.Rename(filepath.Join(root, "a", "refs"), filepath.Join(root, "a", "docs")); err != nil {
		t.Fatal(err)
	}
	waitEvents(t, r, at, ev("skill://a/refs/"), ev("skill://a/docs/x.md"))

	solo := t.TempDir()
	write(t, solo, "SKILL.md", skillMD("name: solo\ndescription: Solo.\n", "Body"))
	write(t, solo, "refs/y.md", "y")
	s := newTestManager(t, &Options{Roots: []string{solo}})
	rs := record(s)
	s.onFiles([]string{solo})
	if got := rs.since(0); !slices.Contains(got, ev("skill://solo/")) {
		t.Errorf("events = %+v, want resources_changed skill://solo/", got)
	}
}

// TestRenamedSkillNamesAllItsURIs: a skill that goes away under its name (renamed in its
// frontmatter here) takes every URI under skill://<name>/ with it, not only its SKILL.md, so the
// batch names its folder as a prefix.
func TestRenamedSkillNamesAllItsURIs(t *testing.T) {
	root := t.TempDir()
	md := write(t, root, "a/SKILL.md", skillMD("name: a\ndescription: A.\n", "Body"))
	write(t, root, "a/ref.md", "ref")
	m := newTestManager(t, &Options{Roots: []string{root}})
	r := record(m)
	write(t, root, "a/SKILL.md", skillMD("name: b\ndescription: A.\n", "Body"))
	m.onFiles([]string{md})
	want := ext.ChangeEvent{Capability: "skills", Kind: ext.ResourcesChanged, SourceURI: "skill://a/"}
	if got := r.since(0); !slices.Contains(got, want) {
		t.Errorf("events = %+v, want %+v", got, want)
	}
}

// TestAppearedSkillNamesAllItsURIs: a skill that appears may shadow one of its name from a
// source of lower precedence, whose files its URIs named until now, so the batch names its
// folder as a prefix too.
func TestAppearedSkillNamesAllItsURIs(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/SKILL.md", skillMD("name: a\ndescription: A.\n", "Body"))
	m := newTestManager(t, &Options{Roots: []string{root}})
	r := record(m)
	md := write(t, root, "b/SKILL.md", skillMD("name: b\ndescription: B.\n", "Body"))
	m.onFiles([]string{filepath.Dir(md), md})
	want := ext.ChangeEvent{Capability: "skills", Kind: ext.ResourcesChanged, SourceURI: "skill://b/"}
	if got := r.since(0); !slices.Contains(got, want) {
		t.Errorf("events = %+v, want %+v", got, want)
	}
}
