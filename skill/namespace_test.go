package skill

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// namespaceTree builds a user root with a bare "configure", and two plugin folders "a" and "b"
// each holding a "configure" ("a" also a "deploy" with a file and an MCP server). It returns
// the user root and the plugin skill folders by namespace.
func namespaceTree(t *testing.T, userConfigure bool) (user string, plugins map[string]string) {
	base := t.TempDir()
	user = filepath.Join(base, "user")
	plugins = map[string]string{"a": filepath.Join(base, "plug-a", "skills"), "b": filepath.Join(base, "plug-b", "skills")}
	write(t, user, "other/SKILL.md", skillMD("name: other\ndescription: The user's other skill.\n", "Other body"))
	if userConfigure {
		write(t, user, "configure/SKILL.md", skillMD("name: configure\ndescription: The user's own.\n", "User body"))
	}
	write(t, plugins["a"], "configure/SKILL.md", skillMD("name: configure\ndescription: Plugin a configures.\n", "A body"))
	write(t, plugins["a"], "deploy/SKILL.md", skillMD("name: deploy\ndescription: Plugin a deploys.\nalways-active: true\n"+
		"mcp-servers:\n  srv:\n    command: srv\n", "Deploy body"))
	write(t, plugins["a"], "deploy/ref.md", "# Ref\n")
	write(t, plugins["b"], "configure/SKILL.md", skillMD("name: configure\ndescription: Plugin b configures.\n", "B body"))
	return user, plugins
}

func namespacedOptions(user string, plugins map[string]string) *Options {
	return &Options{Roots: []string{user}, NamespacedRoots: []NamespacedRoot{
		{Namespace: "a", Dir: plugins["a"]},
		{Namespace: "b", Dir: plugins["b"]},
		{Namespace: "c", Dir: filepath.Join(filepath.Dir(plugins["a"]), "missing")}, // a plugin without skills
	}}
}

func loadSkill(t *testing.T, m *Manager, name string) *ext.ToolResult {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"name": name})
	res, err := m.CallTool(context.Background(), &ext.ToolCall{Name: LoadSkillTool, Arguments: args})
	if err != nil {
		t.Fatalf("load_skill %s: %v", name, err)
	}
	return res
}

// TestNamespacedNames: a skill under a namespaced root is "<ns>:<name>" in every list and
// lookup, its URI skill://<ns>/<name>/SKILL.md; the same bare name in two namespaces and in a
// user root is three skills, with no diagnostic; a missing namespaced root is silent.
func TestNamespacedNames(t *testing.T) {
	user, plugins := namespaceTree(t, true)
	m := newTestManager(t, namespacedOptions(user, plugins))
	ctx := context.Background()
	var names []string
	for _, s := range m.Skills() {
		names = append(names, s.Name)
	}
	if want := []string{"a:configure", "a:deploy", "b:configure", "configure", "other"}; !slices.Equal(names, want) {
		t.Fatalf("skills %v, want %v", names, want)
	}
	if d := m.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics:\n%s", diagList(d))
	}
	s := m.Skill("a:configure")
	if s == nil || s.Namespace != "a" || s.BareName() != "configure" || s.URI() != "skill://a/configure/SKILL.md" {
		t.Fatalf("Skill(a:configure) = %+v", s)
	}
	if u := m.Skill("configure"); u == nil || u.Namespace != "" || u.URI() != "skill://configure/SKILL.md" {
		t.Errorf("Skill(configure) = %+v", u)
	}
	if m.Skill("a.configure") != s {
		t.Errorf("Skill(a.configure), the tool-name form, does not find a:configure")
	}
	roots := m.Roots()
	if len(roots) != 4 || roots[0] != user || roots[1] != plugins["a"] || roots[2] != plugins["b"] {
		t.Errorf("Roots() = %v, want the user root, then the namespaced ones", roots)
	}
	if nr := m.NamespacedRoots(); len(nr) != 3 || nr[0] != (NamespacedRoot{Namespace: "a", Dir: plugins["a"]}) {
		t.Errorf("NamespacedRoots() = %v", nr)
	}

	entries, err := m.ListSkills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[0]; e.Name != "a:configure" || e.URI != "skill://a/configure/SKILL.md" || e.Origin != filepath.Join(plugins["a"], "configure") {
		t.Errorf("entry %+v", e)
	}
	ins, err := m.Instructions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<name>a:configure</name>", "<name>b:configure</name>", "<name>configure</name>"} {
		if !strings.Contains(ins.Static, want) {
			t.Errorf("catalogue lacks %s:\n%s", want, ins.Static)
		}
	}
	if !strings.Contains(ins.Dynamic, `<skill_content name="a:deploy">`) {
		t.Errorf("always-active a:deploy not in dynamic instructions:\n%s", ins.Dynamic)
	}

	cmds, err := m.ListCommands(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cmdNames []string
	for _, c := range cmds {
		cmdNames = append(cmdNames, c.Name+"="+c.QualifiedName)
	}
	if want := "a:configure=skill:a:configure"; !slices.Contains(cmdNames, want) {
		t.Errorf("commands %v lack %s", cmdNames, want)
	}
	for name, body := range map[string]string{"a:configure": "A body", "skill:b:configure": "B body", "configure": "User body"} {
		res, err := m.GetCommand(ctx, &ext.CommandRequest{Name: name})
		if err != nil || !strings.Contains(res.Text(), body) {
			t.Errorf("GetCommand(%s) = %+v, %v; want %q", name, res, err, body)
		}
	}
}

// TestNamespacedLoadSkill: load_skill takes the qualified name or the skill's URI; a bare name
// is the user's skill, never a plugin's.
func TestNamespacedLoadSkill(t *testing.T) {
	user, plugins := namespaceTree(t, true)
	m := newTestManager(t, namespacedOptions(user, plugins))
	for name, want := range map[string]string{
		"configure":                    "<skill_content name=\"configure\">\nUser body",
		"a:configure":                  "<skill_content name=\"a:configure\">\nA body",
		"skill://b/configure/SKILL.md": "<skill_content name=\"b:configure\">\nB body",
		"skill://b/configure":          "<skill_content name=\"b:configure\">\nB body",
	} {
		res := loadSkill(t, m, name)
		if res.IsError || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("load_skill %s = %+v, want %q", name, res.Content, want)
		}
	}
	res := loadSkill(t, m, "a:deploy")
	if text := res.Content[0].Text; !strings.Contains(text, "skill://a/deploy/") || !strings.Contains(text, "<file>ref.md</file>") {
		t.Errorf("load_skill a:deploy does not give the skill's directory URI and files:\n%s", text)
	}
	for _, bad := range []string{"skill://a:configure/SKILL.md", "skill://a/deploy/ref.md", "a.configure", "c:configure"} {
		if res := loadSkill(t, m, bad); !res.IsError {
			t.Errorf("load_skill %s = %+v, want a tool error", bad, res.Content)
		}
	}

	user2, plugins2 := namespaceTree(t, false)
	m2 := newTestManager(t, namespacedOptions(user2, plugins2))
	if res := loadSkill(t, m2, "configure"); !res.IsError || !strings.Contains(res.Content[0].Text, `No skill named "configure"`) {
		t.Errorf("load_skill configure without a user skill = %+v, want not found", res.Content)
	}
	if _, err := m2.GetCommand(context.Background(), &ext.CommandRequest{Name: "configure"}); err == nil {
		t.Errorf("GetCommand(configure) found a plugin's skill by its bare name")
	}
}

// TestNamespaceRules: a namespace must be kebab-case; the same namespace on two folders is one
// namespace, where the usual same-name rule applies.
func TestNamespaceRules(t *testing.T) {
	dir := t.TempDir()
	for _, ns := range []string{"", "A", "a_b", "-a", "a-", "a:b", "a/b", "a.b", "ä"} {
		_, err := NewManager(&Options{NamespacedRoots: []NamespacedRoot{{Namespace: ns, Dir: dir}}})
		if err == nil || !strings.Contains(err.Error(), "namespace") || !strings.Contains(err.Error(), `"`+ns+`"`) {
			t.Errorf("namespace %q: err %v, want one naming it", ns, err)
		}
	}
	for _, ns := range []string{"a", "a-b", "0", "x9-y"} {
		m, err := NewManager(&Options{NamespacedRoots: []NamespacedRoot{{Namespace: ns, Dir: dir}}})
		if err != nil {
			t.Errorf("namespace %q: %v", ns, err)
			continue
		}
		m.Close(context.Background())
	}

	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	write(t, one, "configure/SKILL.md", skillMD("name: configure\ndescription: First.\n", "First"))
	write(t, two, "configure/SKILL.md", skillMD("name: configure\ndescription: Second.\n", "Second"))
	m := newTestManager(t, &Options{NamespacedRoots: []NamespacedRoot{{Namespace: "a", Dir: one}, {Namespace: "a", Dir: two}}})
	if s := m.Skill("a:configure"); s == nil || s.Description != "First." || len(m.Skills()) != 1 {
		t.Errorf("skills %v, want the first a:configure only", m.Skills())
	}
	d := m.Diagnostics()
	if len(d) != 1 || !strings.Contains(d[0].Message, `duplicate skill name "a:configure"`) || d[0].Path != filepath.Join(two, "configure", "SKILL.md") {
		t.Errorf("diagnostics:\n%s\nwant one duplicate on the second", diagList(d))
	}
}

// TestNamespacedTools: a namespaced skill's servers are built for "<ns>.<name>" and their tools
// listed as "<ns>.<name>__<tool>", names valid for MCP (no ':').
func TestNamespacedTools(t *testing.T) {
	user, plugins := namespaceTree(t, true)
	opts := namespacedOptions(user, plugins)
	var got []string
	opts.Children = func(_ context.Context, skill string, d ServerDecl) (ext.Capability, error) {
		got = append(got, skill+"/"+d.Name)
		return &fakeCap{name: d.Name, tools: []string{"run"}}, nil
	}
	m := newTestManager(t, opts)
	ctx := context.Background()
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "a.deploy__run") || !slices.Equal(got, []string{"a.deploy/srv"}) {
		t.Fatalf("tools %v, factory called for %v; want a.deploy__run from a.deploy/srv", names, got)
	}
	res, err := m.CallTool(ctx, &ext.ToolCall{Name: "a.deploy__run", Arguments: json.RawMessage(`{}`)})
	if err != nil || res.IsError || res.Content[0].Text != "srv:run:{}" {
		t.Errorf("CallTool(a.deploy__run) = %+v, %v", res, err)
	}
}

// TestNamespaceNamedSkillCommand: a plugin named "skill" (a valid namespace) has commands
// "skill:<name>", the same text as a bare skill's qualified command name. The view forwards the
// listed name, so GetCommand("skill:configure") must run the plugin's skill:configure, not the
// user's bare configure (nor fail when the user has none).
func TestNamespaceNamedSkillCommand(t *testing.T) {
	for _, userConfigure := range []bool{true, false} {
		user, plugins := namespaceTree(t, userConfigure)
		m := newTestManager(t, &Options{Roots: []string{user}, NamespacedRoots: []NamespacedRoot{{Namespace: "skill", Dir: plugins["a"]}}})
		ctx := context.Background()
		for name, body := range map[string]string{"skill:configure": "A body", "skill:skill:configure": "A body"} {
			res, err := m.GetCommand(ctx, &ext.CommandRequest{Name: name})
			if err != nil || !strings.Contains(res.Text(), body) {
				t.Errorf("user configure %v: GetCommand(%s) = %+v, %v; want %q", userConfigure, name, res, err, body)
			}
		}
		if userConfigure {
			res, err := m.GetCommand(ctx, &ext.CommandRequest{Name: "configure"})
			if err != nil || !strings.Contains(res.Text(), "User body") {
				t.Errorf("GetCommand(configure) = %+v, %v; want the user's", res, err)
			}
		}
	}
}
