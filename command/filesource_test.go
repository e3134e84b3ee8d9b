package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
)

func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newSource(t *testing.T, roots []string, opts *FileOptions) *FileSource {
	t.Helper()
	s, err := NewFileSource(roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func names(t *testing.T, s *FileSource) []string {
	t.Helper()
	list, err := s.ListCommands(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list {
		out = append(out, e.Name)
	}
	return out
}

func diagFor(s *FileSource, path string) []Diagnostic {
	var out []Diagnostic
	for _, d := range s.Diagnostics() {
		if d.Path == path {
			out = append(out, d)
		}
	}
	return out
}

func TestFileSourceNamesAndFrontmatter(t *testing.T) {
	root := tempDir(t)
	writeFile(t, filepath.Join(root, "review.md"), `---
description: Review the current diff
argument-hint: [pr-number] [priority]
allowed-tools: Bash(git diff:*), Read
model: claude-sonnet-4
---
Review PR $1 with priority $2.
`)
	writeFile(t, filepath.Join(root, "frontend", "component.md"), "# Create a component\n\nMake $ARGUMENTS.\n")
	writeFile(t, filepath.Join(root, "a", "b", "c", "deep.md"), "---\ndescription: deep\nallowed-tools:\n  - Read\n  - Write\n---\nDeep body\n")
	writeFile(t, filepath.Join(root, "notes.txt"), "not a command")
	writeFile(t, filepath.Join(root, ".hidden.md"), "dot-file")
	writeFile(t, filepath.Join(root, ".drafts", "x.md"), "dot-folder")
	writeFile(t, filepath.Join(root, "node_modules", "y.md"), "dependency")
	writeFile(t, filepath.Join(root, "UPPER.MD"), "upper-case extension")

	s := newSource(t, []string{root}, nil)
	want := []string{"UPPER", "a:b:c:deep", "frontend:component", "review"}
	if diff := cmp.Diff(want, names(t, s)); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	rv, ok := s.Command("file:review")
	if !ok {
		t.Fatal("review not found by qualified name")
	}
	wantEntry := ext.CommandEntry{
		Name: "review", QualifiedName: "file:review", Source: "file", Path: filepath.Join(root, "review.md"),
		Description: "Review the current diff", ArgumentHint: "[pr-number] [priority]",
	}
	if diff := cmp.Diff(wantEntry, rv.Entry); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	if !slices.Equal(rv.AllowedTools, []string{"Bash(git diff:*)", "Read"}) || rv.Model != "claude-sonnet-4" || rv.Root != root {
		t.Errorf("review: tools %q model %q root %q", rv.AllowedTools, rv.Model, rv.Root)
	}
	deep, _ := s.Command("a:b:c:deep")
	if !slices.Equal(deep.AllowedTools, []string{"Read", "Write"}) {
		t.Errorf("allowed-tools list: %q", deep.AllowedTools)
	}
	comp, _ := s.Command("frontend:component")
	if comp.Entry.Description != "Create a component" {
		t.Errorf("description from first body line: %q", comp.Entry.Description)
	}

	ctx := context.Background()
	out, err := s.GetCommand(ctx, &ext.CommandRequest{Name: "review", Args: []string{"42", "high"}})
	if err != nil || out.Text() != "Review PR 42 with priority high.\n" {
		t.Errorf("GetCommand review = %q, %v", out.Text(), err)
	}
	out, err = s.GetCommand(ctx, &ext.CommandRequest{Name: "file:a:b:c:deep", Args: []string{"x", "y"}})
	if err != nil || out.Text() != "Deep body\n\n\nUser arguments: x y" {
		t.Errorf("GetCommand deep = %q, %v", out.Text(), err)
	}
	for _, bad := range []string{"nope", "../review", "file:", "review.md", filepath.Join(root, "review.md")} {
		if _, err := s.GetCommand(ctx, &ext.CommandRequest{Name: bad, Args: nil}); !errors.Is(err, ext.ErrNotFound) {
			t.Errorf("GetCommand(%q) = %v, want ErrNotFound", bad, err)
		}
	}
	// A command source is a plain capability: commands only, no tools, no instructions.
	var c ext.Capability = s
	if _, ok := c.(ext.ToolProvider); ok {
		t.Error("FileSource offers tools")
	}
	if _, ok := c.(ext.Instructor); ok {
		t.Error("FileSource offers instructions")
	}
	if s.Name() != "commands" {
		t.Errorf("Name = %q", s.Name())
	}
}

func TestFileSourceLenientParsing(t *testing.T) {
	root := tempDir(t)
	files := map[string]string{
		"bom.md":        "\uFEFF---\ndescription: with BOM\n---\nbody $1\n",
		"crlf.md":       "---\r\ndescription: with CRLF\r\n---\r\nline one\r\nline two $1\r\n",
		"nofront.md":    "\n\n## Heading as description\nbody\n",
		"unclosed.md":   "---\ndescription: never closed\nbody\n",
		"badyaml.md":    "---\nmodel: m1\ndescription: fix: the bug\n---\nbody\n",
		"brokenyaml.md": "---\nmodel: m1\ndescription: the bug\ntags: [unclosed\n---\nbody\n",
		"nonstring.md":  "---\ndescription:\n  nested: map\nmodel: 4\n---\nbody\n",
		"binary.md":     "\x00\x01\x02\xff\xfe junk \x00",
		"invalid.md":    "---\ndescription: caf\xe9\n---\nbody\n",
		"empty.md":      "",
		"my cmd.md":     "spaces in name",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(root, name), content)
	}
	s := newSource(t, []string{root}, nil)
	ctx := context.Background()
	if got := len(names(t, s)); got != len(files)-1 {
		t.Fatalf("%d commands, want %d (every file loads but \"my cmd\"): %q", got, len(files)-1, names(t, s))
	}
	desc := func(n string) string {
		c, ok := s.Command(n)
		if !ok {
			t.Fatalf("command %q missing", n)
		}
		return c.Entry.Description
	}
	if d := desc("bom"); d != "with BOM" {
		t.Errorf("bom: %q", d)
	}
	if d := desc("crlf"); d != "with CRLF" {
		t.Errorf("crlf: %q", d)
	}
	if out, _ := s.GetCommand(ctx, &ext.CommandRequest{Name: "crlf", Args: []string{"X"}}); out.Text() != "line one\nline two X\n" {
		t.Errorf("crlf body: %q", out.Text())
	}
	if out, _ := s.GetCommand(ctx, &ext.CommandRequest{Name: "bom", Args: []string{"X"}}); out.Text() != "body X\n" {
		t.Errorf("bom body: %q", out.Text())
	}
	if d := desc("nofront"); d != "Heading as description" {
		t.Errorf("nofront: %q", d)
	}
	if d := desc("unclosed"); d != "---" {
		t.Errorf("unclosed: %q", d)
	}
	// An unquoted ": " in a value (invalid YAML) is quoted and read, with a warning on its line.
	c, _ := s.Command("badyaml")
	if c.Entry.Description != "fix: the bug" || c.Model != "m1" {
		t.Errorf("badyaml repaired: %q %q", c.Entry.Description, c.Model)
	}
	ds := diagFor(s, filepath.Join(root, "badyaml.md"))
	if len(ds) != 1 || ds[0].Line != 3 || ds[0].Severity != SeverityWarning || !strings.Contains(ds[0].Message, "YAML") {
		t.Errorf("badyaml diagnostics: %v", ds)
	}
	// Bad YAML: reported with its line, and the keys still read line by line.
	c, _ = s.Command("brokenyaml")
	if c.Entry.Description != "the bug" || c.Model != "m1" {
		t.Errorf("brokenyaml fallback: %q %q", c.Entry.Description, c.Model)
	}
	ds = diagFor(s, filepath.Join(root, "brokenyaml.md"))
	if len(ds) != 1 || ds[0].Line != 4 || ds[0].Severity != SeverityError || !strings.Contains(ds[0].Message, "YAML") {
		t.Errorf("brokenyaml diagnostics: %v", ds)
	}
	ds = diagFor(s, filepath.Join(root, "unclosed.md"))
	if len(ds) != 1 || ds[0].Line != 1 || !strings.Contains(ds[0].Message, "never closed") {
		t.Errorf("unclosed diagnostics: %v", ds)
	}
	c, _ = s.Command("nonstring")
	if c.Entry.Description != "body" || c.Model != "4" {
		t.Errorf("nonstring: %q %q", c.Entry.Description, c.Model)
	}
	ds = diagFor(s, filepath.Join(root, "nonstring.md"))
	if len(ds) != 1 || ds[0].Line != 2 || !strings.Contains(ds[0].Message, "description should be a string") {
		t.Errorf("nonstring diagnostics: %v", ds)
	}
	if d := desc("invalid"); !strings.HasPrefix(d, "caf") {
		t.Errorf("invalid UTF-8 description: %q", d)
	}
	if ds := diagFor(s, filepath.Join(root, "invalid.md")); len(ds) != 1 || !strings.Contains(ds[0].Message, "UTF-8") {
		t.Errorf("invalid UTF-8 diagnostics: %v", ds)
	}
	// A name with whitespace cannot be typed as one /command: it is left out, with an error.
	if ds := diagFor(s, filepath.Join(root, "my cmd.md")); len(ds) != 1 || !strings.Contains(ds[0].Message, "whitespace") || ds[0].Severity != SeverityError {
		t.Errorf("whitespace name diagnostics: %v", ds)
	}
	if _, ok := s.Command("my cmd"); ok {
		t.Error(`"my cmd" is listed; want it left out`)
	}
	if _, err := s.GetCommand(ctx, &ext.CommandRequest{Name: "binary", Args: nil}); err != nil {
		t.Errorf("binary: %v", err)
	}
	if out, err := s.GetCommand(ctx, &ext.CommandRequest{Name: "empty", Args: []string{"a"}}); err != nil || out.Text() != "\n\nUser arguments: a" {
		t.Errorf("empty: %q, %v", out.Text(), err)
	}
	for _, d := range s.Diagnostics() {
		if d.Path == "" || d.Severity == "" || d.Message == "" || d.String() == "" {
			t.Errorf("incomplete diagnostic %+v", d)
		}
	}
}

func TestFileSourcePrecedenceAcrossRoots(t *testing.T) {
	configured, project, user := tempDir(t), tempDir(t), tempDir(t)
	writeFile(t, filepath.Join(project, "review.md"), "project review")
	writeFile(t, filepath.Join(user, "review.md"), "user review")
	writeFile(t, filepath.Join(user, "only-user.md"), "user only")
	writeFile(t, filepath.Join(configured, "git", "commit.md"), "configured commit")
	writeFile(t, filepath.Join(project, "git", "commit.md"), "project commit")
	// Same name twice inside one root: git:log.md and git/log.md.
	writeFile(t, filepath.Join(project, "git:log.md"), "flat")
	writeFile(t, filepath.Join(project, "git", "log.md"), "nested")

	s := newSource(t, []string{configured, project, filepath.Join(project, "missing"), user, project}, nil)
	if got := s.Roots(); len(got) != 4 {
		t.Errorf("roots not de-duplicated: %q", got)
	}
	ctx := context.Background()
	for name, want := range map[string]string{
		"review": "project review", "only-user": "user only", "git:commit": "configured commit",
	} {
		if out, err := s.GetCommand(ctx, &ext.CommandRequest{Name: name, Args: nil}); err != nil || out.Text() != want {
			t.Errorf("%s = %q, %v; want %q", name, out.Text(), err, want)
		}
	}
	for _, loser := range []string{
		filepath.Join(user, "review.md"), filepath.Join(project, "git", "commit.md"),
	} {
		ds := diagFor(s, loser)
		if len(ds) != 1 || !strings.Contains(ds[0].Message, "shadowed") || !strings.Contains(ds[0].Message, "higher-precedence") {
			t.Errorf("loser %s diagnostics: %v", loser, ds)
		}
	}
	var same int
	for _, d := range s.Diagnostics() {
		if strings.Contains(d.Message, `"git:log" is shadowed`) && strings.Contains(d.Message, "same root") {
			same++
		}
	}
	if same != 1 {
		t.Errorf("same-root duplicate not reported once: %v", s.Diagnostics())
	}
}

func TestFileSourceSymlinks(t *testing.T) {
	root, outside := tempDir(t), tempDir(t)
	writeFile(t, filepath.Join(outside, "shared", "deploy.md"), "deploy $1")
	writeFile(t, filepath.Join(outside, "single.md"), "single file")
	mustSymlink(t, filepath.Join(outside, "shared"), filepath.Join(root, "team"))
	mustSymlink(t, filepath.Join(outside, "single.md"), filepath.Join(root, "linked.md"))
	mustSymlink(t, root, filepath.Join(root, "team-loop")) // a cycle back to the root
	mustSymlink(t, filepath.Join(outside, "nowhere.md"), filepath.Join(root, "dangling.md"))

	s := newSource(t, []string{root}, nil)
	if diff := cmp.Diff([]string{"linked", "team:deploy"}, names(t, s)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if out, err := s.GetCommand(context.Background(), &ext.CommandRequest{Name: "team:deploy", Args: []string{"prod"}}); err != nil || out.Text() != "deploy prod" {
		t.Errorf("through symlinked dir: %q, %v", out.Text(), err)
	}
	if ds := diagFor(s, filepath.Join(root, "team-loop")); len(ds) != 1 || !strings.Contains(ds[0].Message, "cycle") {
		t.Errorf("cycle diagnostics: %v", ds)
	}
	if ds := diagFor(s, filepath.Join(root, "dangling.md")); len(ds) != 1 || !strings.Contains(ds[0].Message, "dangling") {
		t.Errorf("dangling diagnostics: %v", ds)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestFileSourceDepthLimit(t *testing.T) {
	root := tempDir(t)
	writeFile(t, filepath.Join(root, "1", "2", "at-limit.md"), "x")
	writeFile(t, filepath.Join(root, "1", "2", "3", "too-deep.md"), "x")
	s := newSource(t, []string{root}, &FileOptions{MaxDepth: 2})
	if diff := cmp.Diff([]string{"1:2:at-limit"}, names(t, s)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFileSourceRootNotADirectory(t *testing.T) {
	f := filepath.Join(tempDir(t), "file.md")
	writeFile(t, f, "x")
	s := newSource(t, []string{f}, &FileOptions{Watch: true, Debounce: 20 * time.Millisecond})
	if ds := diagFor(s, f); len(ds) != 1 || ds[0].Severity != SeverityError {
		t.Errorf("diagnostics: %v", s.Diagnostics())
	}
}

func TestFileSourceBodyCacheFollowsFile(t *testing.T) {
	root := tempDir(t)
	p := filepath.Join(root, "c.md")
	writeFile(t, p, "version one")
	s := newSource(t, []string{root}, nil) // no watcher: the cache is checked against the file
	ctx := context.Background()
	if out, _ := s.GetCommand(ctx, &ext.CommandRequest{Name: "c", Args: nil}); out.Text() != "version one" {
		t.Fatalf("first read %q", out.Text())
	}
	writeFile(t, p, "version two, longer")
	if out, _ := s.GetCommand(ctx, &ext.CommandRequest{Name: "c", Args: nil}); out.Text() != "version two, longer" {
		t.Errorf("after edit %q", out.Text())
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetCommand(ctx, &ext.CommandRequest{Name: "c", Args: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	if err := s.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if n := names(t, s); len(n) != 0 {
		t.Errorf("after reload: %q", n)
	}
}

// events collects change events from a FileSource.
type events struct {
	mu  sync.Mutex
	evs []ext.ChangeEvent
}

func (e *events) add(ev ext.ChangeEvent) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) snapshot() []ext.ChangeEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.evs)
}

func (e *events) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.evs)
}

func TestFileSourceHotReload(t *testing.T) {
	base := tempDir(t)
	project := filepath.Join(base, "project")
	roots := DefaultRoots(project, "")
	claude := roots[0]
	writeFile(t, filepath.Join(claude, "review.md"), "---\ndescription: v1\n---\nreview v1")
	s := newSource(t, roots, &FileOptions{Name: "project-commands", Watch: true, Debounce: 50 * time.Millisecond})
	var evs events
	stop := s.Observe(evs.add)
	defer stop()
	ctx := context.Background()
	has := func(name string) bool { return slices.Contains(names(t, s), name) }
	desc := func(name string) string { c, _ := s.Command(name); return c.Entry.Description }

	// Created.
	writeFile(t, filepath.Join(claude, "ops", "deploy.md"), "deploy $1")
	testwait.For(t, "created command", func() bool { return has("ops:deploy") })
	testwait.For(t, "commands_changed", func() bool { return evs.count() > 0 })

	// Edited, editor-style: temp file renamed over the original.
	n := evs.count()
	tmp := filepath.Join(claude, ".review.md.tmp")
	writeFile(t, tmp, "---\ndescription: v2\n---\nreview v2")
	if err := os.Rename(tmp, filepath.Join(claude, "review.md")); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "edited description", func() bool { return desc("review") == "v2" })
	if out, _ := s.GetCommand(ctx, &ext.CommandRequest{Name: "review", Args: nil}); out.Text() != "review v2" {
		t.Errorf("body after edit: %q", out.Text())
	}
	testwait.For(t, "event for edit", func() bool { return evs.count() > n })

	// Renamed.
	if err := os.Rename(filepath.Join(claude, "ops"), filepath.Join(claude, "infra")); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "renamed command", func() bool { return has("infra:deploy") && !has("ops:deploy") })

	// A root that did not exist at start: .agents/commands appears later.
	writeFile(t, filepath.Join(roots[1], "late.md"), "late")
	testwait.For(t, "command in a late root", func() bool { return has("late") })

	// Deleted.
	if err := os.Remove(filepath.Join(claude, "review.md")); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "deleted command", func() bool { return !has("review") })

	for _, ev := range evs.snapshot() {
		if ev.Kind != ext.CommandsChanged || ev.Capability != "project-commands" {
			t.Errorf("unexpected event %+v", ev)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := s.ListCommands(ctx); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("ListCommands after Close: %v", err)
	}
	if _, err := s.GetCommand(ctx, &ext.CommandRequest{Name: "late", Args: nil}); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("GetCommand after Close: %v", err)
	}
}

func TestFileSourceBurstBoundedEvents(t *testing.T) {
	root := tempDir(t)
	p := filepath.Join(root, "c.md")
	writeFile(t, p, "v0")
	s := newSource(t, []string{root}, &FileOptions{Watch: true, Debounce: 200 * time.Millisecond})
	var evs events
	defer s.Observe(evs.add)()
	const edits = 200
	for i := 1; i <= edits; i++ {
		writeFile(t, p, strings.Repeat("x", i))
	}
	testwait.For(t, "last content", func() bool {
		c, _ := s.Command("c")
		out, _ := s.GetCommand(context.Background(), &ext.CommandRequest{Name: "c", Args: nil})
		return c.Entry.Description == strings.Repeat("x", edits) && out.Text() == strings.Repeat("x", edits)
	})
	testwait.For(t, "an event", func() bool { return evs.count() > 0 })
	if n := evs.count(); n > 10 {
		t.Errorf("%d events for %d rapid edits", n, edits)
	}
}

func TestCloseWithoutUse(t *testing.T) {
	s, err := NewFileSource(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultRoots(t *testing.T) {
	got := DefaultRoots("/p", "/h")
	want := []string{"/p/.claude/commands", "/p/.agents/commands", "/h/.claude/commands", "/h/.agents/commands"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := DefaultRoots("/h", "/h"); len(got) != 2 {
		t.Errorf("duplicates kept: %q", got)
	}
	if got := DefaultRoots("", ""); len(got) != 0 {
		t.Errorf("empty dirs: %q", got)
	}
}

func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		"", "---\n---\n", "---\ndescription: x\n---\nbody", "\uFEFF---\r\ndescription: y\r\n---\r\nb",
		"---\ndescription: a: b\n---\n", "---\nunclosed", "---\nallowed-tools: [a, b]\nargument-hint: [x] [y]\n---\n",
		"---\ndescription:\n  - 1\n  - {a: b}\nmodel: 3.5\n---\n", "\x00\xff\xfe", "---\n: :\n- -\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p := parseFile(src)
		for _, d := range p.diags {
			if d.Message == "" || d.Severity == "" || d.Line < 0 {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if !utf8.ValidString(p.body) || !utf8.ValidString(p.Description) || !utf8.ValidString(p.ArgumentHint) {
			t.Fatalf("invalid UTF-8 out of parseFile: %+v", p)
		}
		if strings.HasPrefix(p.body, "\n") {
			t.Fatalf("body starts with a blank line: %q", p.body)
		}
	})
}

// TestGetCommandTemplate checks that a command file is a template under the safe rules: $1…$9 and
// $ARGUMENTS substitute, while $10.00, fenced code and \$ stay literal; a file without any
// placeholder gets the arguments appended.
func TestGetCommandTemplate(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "price.md"), "---\ndescription: Prices\n---\nQuote $1 at $10.00 (was $5.00), not \\$2.\n```sh\nawk '{print $1}' $ARGUMENTS\n```\nThen $ARGUMENTS[1].\n")
	writeFile(t, filepath.Join(root, "static.md"), "Costs $10.00.\n```\n$1\n```\n")
	s := newSource(t, []string{root}, nil)
	ctx := context.Background()
	out, err := s.GetCommand(ctx, &ext.CommandRequest{Name: "price", Args: []string{"gold", "silver"}})
	want := "Quote gold at $10.00 (was $5.00), not $2.\n```sh\nawk '{print $1}' $ARGUMENTS\n```\nThen silver.\n"
	if err != nil || out.Text() != want {
		t.Errorf("GetCommand price = %q, %v; want %q", out.Text(), err, want)
	}
	out, err = s.GetCommand(ctx, &ext.CommandRequest{Name: "static", Args: []string{"x"}})
	if want := "Costs $10.00.\n```\n$1\n```\n\n\nUser arguments: x"; err != nil || out.Text() != want {
		t.Errorf("GetCommand static = %q, %v; want %q", out.Text(), err, want)
	}
}
