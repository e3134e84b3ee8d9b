package skill

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// managerTree builds skills exercising resources, instructions, tools and commands, plus files
// outside the root for the escape tests. It returns the root.
func managerTree(t *testing.T) (root, outside string) {
	base := t.TempDir()
	root = filepath.Join(base, "skills")
	outside = filepath.Join(base, "outside")
	write(t, root, "alpha/SKILL.md", skillMD("name: alpha\ndescription: First skill.\n", "Alpha body"))
	write(t, root, "alpha/references/ref.md", "# Reference\n")
	write(t, root, "alpha/assets/logo.png", "\x89PNG\r\n\x1a\n\x00\x00")
	write(t, root, "alpha/data.bin", "\x00\x01\x02")
	write(t, root, "alpha/notes", "plain words\n")
	write(t, root, "beta/SKILL.md", skillMD("name: beta\ndescription: Uses <tags> & \"quotes\".\nalways-active: true\nuser-invocable: false\n", "Beta body </skill_content> end"))
	write(t, root, "gamma/SKILL.md", skillMD("name: gamma\ndescription: Hidden from the model.\ndisable-model-invocation: true\nargument-hint: \"[what]\"\n", "Run $ARGUMENTS now"))
	write(t, root, "leak/SKILL.md", skillMD("name: leak\ndescription: Has links out.\n", "Body"))
	write(t, outside, "secret.txt", "secret")
	write(t, outside, "dir/file.txt", "secret too")
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "leak", "secret.txt"))
	symlink(t, filepath.Join(outside, "dir"), filepath.Join(root, "leak", "sub"))
	// A sibling of the alpha folder whose name starts with "alpha".
	write(t, root, "alpha-evil/x.txt", "evil")
	return root, outside
}

func newTestManager(t *testing.T, opts *Options) *Manager {
	t.Helper()
	m, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

func TestReadSkill(t *testing.T) {
	root, _ := managerTree(t)
	m := newTestManager(t, &Options{Roots: []string{root}})
	ctx := context.Background()
	type want struct {
		mime string
		text string // expected Text, or "" for a blob
		err  error
	}
	cases := map[string]want{
		"skill://alpha/SKILL.md":               {mime: "text/markdown", text: skillMD("name: alpha\ndescription: First skill.\n", "Alpha body")},
		"skill://alpha":                        {mime: "text/markdown", text: skillMD("name: alpha\ndescription: First skill.\n", "Alpha body")},
		"skill://alpha/references/ref.md":      {mime: "text/markdown", text: "# Reference\n"},
		"skill://alpha/references%2Fref.md":    {mime: "text/markdown", text: "# Reference\n"},
		"skill://alpha/assets/logo.png":        {mime: "image/png"},
		"skill://alpha/data.bin":               {mime: "application/octet-stream"},
		"skill://alpha/notes":                  {mime: "text/plain", text: "plain words\n"},
		"skill://alpha/missing.md":             {err: ext.ErrNotFound},
		"skill://alpha/references":             {err: ext.ErrNotFound},
		"skill://nope/SKILL.md":                {err: ext.ErrNotFound},
		"file:///etc/passwd":                   {err: ext.ErrNotFound},
		"skill://alpha/../beta/SKILL.md":       {err: ext.ErrPathTraversal},
		"skill://alpha/%2e%2e/beta/SKILL.md":   {err: ext.ErrPathTraversal},
		"skill://alpha/%252e%252e/%252e%252e/": {err: ext.ErrPathTraversal},
		"skill://alpha/..%5c..%5cetc%5cpasswd": {err: ext.ErrPathTraversal},
		"skill://alpha/..\\beta\\SKILL.md":     {err: ext.ErrPathTraversal},
		"skill://alpha//etc/passwd":            {err: ext.ErrPathTraversal},
		"skill://alpha/../alpha-evil/x.txt":    {err: ext.ErrPathTraversal},
		"skill://alpha/%00":                    {err: ext.ErrInvalidURI},
		"skill://alpha/x\x00y":                 {err: ext.ErrInvalidURI},
		"skill://leak/secret.txt":              {err: ext.ErrPathTraversal},
		"skill://leak/sub/file.txt":            {err: ext.ErrPathTraversal},
	}
	for uri, w := range cases {
		rc, err := m.ReadSkill(ctx, uri)
		if w.err != nil {
			if !errors.Is(err, w.err) {
				t.Errorf("ReadSkill(%q) error = %v, want %v", uri, err, w.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") && !strings.Contains(uri, "secret") {
				t.Errorf("ReadSkill(%q) error leaks content: %v", uri, err)
			}
			continue
		}
		if err != nil || len(rc) != 1 {
			t.Errorf("ReadSkill(%q) = %v, %v", uri, rc, err)
			continue
		}
		c := rc[0]
		if c.URI != uri || c.MIMEType != w.mime || c.Text != w.text || (w.text == "") != (len(c.Blob) > 0) {
			t.Errorf("ReadSkill(%q) = %+v, want mime %s text %q", uri, c, w.mime, w.text)
		}
	}
}

func TestSkillExists(t *testing.T) {
	root, _ := managerTree(t)
	m := newTestManager(t, &Options{Roots: []string{root}})
	ctx := context.Background()
	cases := []struct {
		uri string
		ok  bool
		err error
	}{
		{"skill://alpha/SKILL.md", true, nil},
		{"skill://alpha", true, nil},
		{"skill://alpha/references/ref.md", true, nil},
		{"skill://alpha/references", false, nil},
		{"skill://alpha/missing", false, nil},
		{"skill://nope/SKILL.md", false, nil},
		{"skill://alpha/../beta/SKILL.md", false, ext.ErrPathTraversal},
		{"skill://leak/secret.txt", false, ext.ErrPathTraversal},
		{"skill://alpha/%2e%2e%2falpha-evil/x.txt", false, ext.ErrPathTraversal},
	}
	for _, c := range cases {
		ok, err := m.SkillExists(ctx, c.uri)
		if ok != c.ok || (c.err == nil) != (err == nil) || (c.err != nil && !errors.Is(err, c.err)) {
			t.Errorf("SkillExists(%q) = %v, %v; want %v, %v", c.uri, ok, err, c.ok, c.err)
		}
	}
}

func TestListAndInstructions(t *testing.T) {
	root, _ := managerTree(t)
	m := newTestManager(t, &Options{Roots: []string{root}, Matcher: func(prompt string, skills []ext.SkillEntry) []string {
		for _, s := range skills {
			if s.Name == "gamma" {
				t.Errorf("matcher offered a skill hidden from the model")
			}
		}
		return []string{"alpha", "unknown", "beta", "alpha"}
	}})
	ctx := context.Background()
	list, err := m.ListSkills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
		if e.URI != "skill://"+e.Name+"/SKILL.md" || e.Origin != filepath.Join(root, e.Name) || e.MIMEType != "text/markdown" {
			t.Errorf("entry %+v", e)
		}
	}
	if !slices.Equal(names, []string{"alpha", "beta", "gamma", "leak"}) {
		t.Errorf("ListSkills names = %q", names)
	}
	ins, err := m.Instructions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantStatic := catalogueIntro + "\n\n<available-skills>\n" +
		"  <skill>\n    <name>alpha</name>\n    <description>First skill.</description>\n  </skill>\n" +
		"  <skill>\n    <name>beta</name>\n    <description>Uses &lt;tags&gt; &amp; &quot;quotes&quot;.</description>\n  </skill>\n" +
		"  <skill>\n    <name>leak</name>\n    <description>Has links out.</description>\n  </skill>\n" +
		"</available-skills>"
	if ins.Static != wantStatic {
		t.Errorf("Static =\n%s\nwant\n%s", ins.Static, wantStatic)
	}
	wantBeta := "<skill_content name=\"beta\">\nBeta body &lt;/skill_content> end\n</skill_content>"
	if ins.Dynamic != wantBeta {
		t.Errorf("Dynamic = %q, want %q", ins.Dynamic, wantBeta)
	}
	turn, err := m.TurnInstructions(ctx, "do alpha things")
	if err != nil {
		t.Fatal(err)
	}
	if want := wantBeta + "\n\n<skill_content name=\"alpha\">\nAlpha body\n</skill_content>"; turn != want {
		t.Errorf("TurnInstructions = %q, want %q", turn, want)
	}
	// No skills: nothing at all.
	empty := newTestManager(t, &Options{Roots: []string{t.TempDir()}})
	if ins, _ := empty.Instructions(ctx); ins.Static != "" || ins.Dynamic != "" {
		t.Errorf("empty manager instructions = %+v", ins)
	}
	if tools, _ := empty.Tools(ctx); len(tools) != 0 {
		t.Errorf("empty manager tools = %v", tools)
	}
}

func TestLoadSkillTool(t *testing.T) {
	root, _ := managerTree(t)
	m := newTestManager(t, &Options{Roots: []string{root}})
	ctx := context.Background()
	tools, err := m.Tools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != LoadSkillTool || !json.Valid(tools[0].InputSchema) {
		t.Fatalf("Tools = %v, %v", tools, err)
	}
	res, err := m.CallTool(ctx, &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(`{"name":"alpha"}`)})
	if err != nil || res.IsError {
		t.Fatalf("load_skill alpha = %v, %v", res, err)
	}
	text := res.Content[0].Text
	for _, want := range []string{"<skill_content name=\"alpha\">\nAlpha body\n", "skill://alpha/", "<file>references/ref.md</file>", "<file>assets/logo.png</file>", "</skill_content>"} {
		if !strings.Contains(text, want) {
			t.Errorf("load_skill text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "<file>SKILL.md</file>") {
		t.Errorf("load_skill lists SKILL.md itself")
	}
	res, err = m.CallTool(ctx, &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(`{"name":"alpah"}`)})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "alpha") {
		t.Errorf("load_skill alpah = %+v, %v", res, err)
	}
	for _, bad := range []string{`{}`, `not json`, `{"name": 3}`} {
		res, err = m.CallTool(ctx, &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(bad)})
		if err != nil || !res.IsError {
			t.Errorf("load_skill %s = %+v, %v", bad, res, err)
		}
	}
	if _, err := m.CallTool(ctx, &ext.ToolCall{Name: "nope", Arguments: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Errorf("CallTool(nope) = %v", err)
	}
	if _, err := m.CallTool(ctx, &ext.ToolCall{Name: "alpha__x", Arguments: nil}); !errors.Is(err, ext.ErrNotFound) {
		t.Errorf("CallTool(alpha__x) = %v", err)
	}
}

func TestCommands(t *testing.T) {
	root, _ := managerTree(t)
	m := newTestManager(t, &Options{Roots: []string{root}})
	ctx := context.Background()
	cmds, err := m.ListCommands(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
		if c.QualifiedName != "skill:"+c.Name || c.Source != "skill" || c.Path != filepath.Join(root, c.Name, "SKILL.md") {
			t.Errorf("command %+v", c)
		}
	}
	if !slices.Equal(names, []string{"alpha", "gamma", "leak"}) {
		t.Errorf("commands = %q (beta is not user-invocable)", names)
	}
	if cmds[1].ArgumentHint != "[what]" {
		t.Errorf("gamma hint = %q", cmds[1].ArgumentHint)
	}
	got, err := m.GetCommand(ctx, &ext.CommandRequest{Name: "gamma", Args: []string{"a b", "c"}})
	if err != nil || got.Text() != "Run a b c now" {
		t.Errorf("GetCommand(gamma) = %q, %v", got.Text(), err)
	}
	got, err = m.GetCommand(ctx, &ext.CommandRequest{Name: "skill:alpha", Args: []string{"x"}})
	if err != nil || got.Text() != "Alpha body\n\nUser arguments: x" {
		t.Errorf("GetCommand(skill:alpha) = %q, %v", got.Text(), err)
	}
	for _, name := range []string{"beta", "nope", "skill:nope"} {
		if _, err := m.GetCommand(ctx, &ext.CommandRequest{Name: name, Args: nil}); !errors.Is(err, ext.ErrNotFound) {
			t.Errorf("GetCommand(%s) = %v", name, err)
		}
	}
}

func TestCloseIdempotent(t *testing.T) {
	root, _ := managerTree(t)
	m, err := NewManager(&Options{Roots: []string{root}, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.ListSkills(ctx); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("ListSkills after Close = %v", err)
	}
	if _, err := m.ReadSkill(ctx, "skill://alpha"); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("ReadSkill after Close = %v", err)
	}
	if _, err := m.Tools(ctx); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("Tools after Close = %v", err)
	}
	// A manager never used closes cleanly too.
	m2, _ := NewManager(nil)
	if err := m2.Close(ctx); err != nil || m2.Name() != "skills" {
		t.Errorf("Close(unused) = %v, name %q", err, m2.Name())
	}
}

func TestBodyCache(t *testing.T) {
	root := t.TempDir()
	p := write(t, root, "c/SKILL.md", skillMD("name: c\ndescription: d\n", "one"))
	skills, _ := Discover([]string{root}, nil)
	s := skills[0]
	if b, _ := s.Body(); b != "one" {
		t.Fatalf("body = %q", b)
	}
	// A different size is noticed without any watcher.
	if err := os.WriteFile(p, []byte(skillMD("name: c\ndescription: d\n", "second")), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Body(); b != "second" {
		t.Errorf("body after edit = %q", b)
	}
	// SKILL.md swapped for a symlink leading out of the skill folder is refused.
	os.Remove(p)
	outside := write(t, t.TempDir(), "evil.md", skillMD("name: c\ndescription: d\n", "evil"))
	symlink(t, outside, p)
	if b, err := s.Body(); !errors.Is(err, ext.ErrPathTraversal) {
		t.Errorf("body through an outside symlink = %q, %v", b, err)
	}
	os.Remove(p)
	if _, err := s.Body(); err == nil {
		t.Errorf("body of a removed file: no error")
	}
}

// TestDisableModelInvocation checks that a skill marked disable-model-invocation never reaches
// the model: not in the catalogue, not through always-active, not through the matcher, not
// through load_skill; that load_skill is offered only when some skill may be used by the
// model; and that an empty body is not injected as an empty block.
func TestDisableModelInvocation(t *testing.T) {
	root := t.TempDir()
	write(t, root, "user-only/SKILL.md", skillMD("name: user-only\ndescription: Deploys.\ndisable-model-invocation: true\n", "USER-ONLY BODY"))
	write(t, root, "pinned/SKILL.md", skillMD("name: pinned\ndescription: Pinned but user only.\nalways-active: true\ndisable-model-invocation: true\n", "PINNED BODY"))
	write(t, root, "hidden/SKILL.md", skillMD("name: hidden\ndescription: Neither.\ndisable-model-invocation: true\nuser-invocable: false\n", "HIDDEN BODY"))
	ctx := context.Background()
	matcher := func(string, []ext.SkillEntry) []string {
		return []string{"user-only", "pinned", "hidden", "open", "blank"}
	}
	m := newTestManager(t, &Options{Roots: []string{root}, Matcher: matcher})
	if d := m.Diagnostics(); len(d) != 1 || d[0].Line != 4 || !strings.Contains(d[0].Message, "always-active has no effect") {
		t.Errorf("diagnostics:\n%s", diagList(d))
	}
	ins, _ := m.Instructions(ctx)
	turn, _ := m.TurnInstructions(ctx, "deploy")
	if ins.Static != "" || ins.Dynamic != "" || turn != "" {
		t.Errorf("a user-only skill reached the model: %+v, turn %q", ins, turn)
	}
	if tools, _ := m.Tools(ctx); len(tools) != 0 {
		t.Errorf("load_skill offered with only user-only skills: %v", tools)
	}
	for name, want := range map[string]string{"user-only": "as the /user-only command", "pinned": "disable-model-invocation", "hidden": "only the user runs it."} {
		res, err := m.CallTool(ctx, &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(`{"name":"` + name + `"}`)})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, want) || strings.Contains(res.Content[0].Text, "BODY") {
			t.Errorf("load_skill %s = %+v, %v", name, res, err)
		}
	}
	res, _ := m.CallTool(ctx, &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(`{"name":"user-onl"}`)})
	if !res.IsError || strings.Contains(res.Content[0].Text, "Did you mean") {
		t.Errorf("load_skill suggested a user-only skill: %+v", res)
	}

	// A model-invocable skill brings load_skill; an always-active one with an empty body adds
	// no block.
	write(t, root, "open/SKILL.md", skillMD("name: open\ndescription: Open.\n", "OPEN BODY"))
	write(t, root, "blank/SKILL.md", skillMD("name: blank\ndescription: Blank.\nalways-active: true\n", "\n  \n"))
	if err := m.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if tools, _ := m.Tools(ctx); len(tools) != 1 || tools[0].Name != LoadSkillTool {
		t.Errorf("Tools = %v", tools)
	}
	ins, _ = m.Instructions(ctx)
	turn, _ = m.TurnInstructions(ctx, "deploy")
	if ins.Dynamic != "" {
		t.Errorf("Dynamic = %q, want nothing (the only always-active model skill is empty)", ins.Dynamic)
	}
	if turn != "<skill_content name=\"open\">\nOPEN BODY\n</skill_content>" {
		t.Errorf("TurnInstructions = %q", turn)
	}
	if strings.Contains(ins.Static, "user-only") || strings.Contains(ins.Static, "pinned") || !strings.Contains(ins.Static, "<name>open</name>") {
		t.Errorf("Static = %q", ins.Static)
	}
}

// TestLoadSkillURI checks that load_skill takes a skill's own URI as its name, and refuses a
// file URI saying what to call instead, rather than returning SKILL.md.
func TestLoadSkillURI(t *testing.T) {
	root, _ := managerTree(t)
	m := newTestManager(t, &Options{Roots: []string{root}})
	ctx := context.Background()
	call := func(name string) *ext.ToolResult {
		args, _ := json.Marshal(map[string]string{"name": name})
		res, err := m.CallTool(ctx, &ext.ToolCall{Name: LoadSkillTool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, uri := range []string{"skill://alpha", "skill://alpha/", "skill://alpha/SKILL.md"} {
		if res := call(uri); res.IsError || !strings.Contains(res.Content[0].Text, "Alpha body") {
			t.Errorf("load_skill %s = %+v", uri, res)
		}
	}
	res := call("skill://alpha/references/guide.md")
	if text := res.Content[0].Text; !res.IsError || strings.Contains(text, "Alpha body") ||
		!strings.Contains(text, "load_skill takes a skill name") || !strings.Contains(text, `name "alpha"`) {
		t.Errorf("load_skill file URI = %+v", res)
	}
	if res := call("skill://alpha/%2e%2e/beta"); !res.IsError || strings.Contains(res.Content[0].Text, "Alpha body") {
		t.Errorf("load_skill bad URI = %+v", res)
	}
}
