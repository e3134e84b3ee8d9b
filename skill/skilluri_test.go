package skill

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// routedSkills registers, in a new registry, a manager of a bare skill named bare (body as its
// body) and a namespaced skill plug/deploy, and returns the registry and the bare skill's root.
func routedSkills(t *testing.T, bare, body string) (*ext.Registry, string) {
	t.Helper()
	base := t.TempDir()
	user := filepath.Join(base, "user")
	plug := filepath.Join(base, "plug", "skills")
	write(t, user, bare+"/SKILL.md", skillMD("name: "+bare+"\ndescription: Mine.\n", body))
	write(t, plug, "deploy/SKILL.md", skillMD("name: deploy\ndescription: Deploys.\n", "Deploy body"))
	m := newTestManager(t, &Options{Roots: []string{user}, NamespacedRoots: []NamespacedRoot{{Namespace: "plug", Dir: plug}}})
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { _ = reg.Close(context.Background()) })
	if err := reg.Register(m, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	return reg, user
}

// TestSkillNameAloneThroughRegistry: through the registry's routing, skill://<name> (with or
// without a trailing slash) and a namespaced skill's skill://<ns>/<name> read the skill's
// SKILL.md, as skill://<name>/SKILL.md does; an unknown skill or file stays ErrNotFound.
func TestSkillNameAloneThroughRegistry(t *testing.T) {
	reg, _ := routedSkills(t, "my-skill", "My body")
	ctx := context.Background()
	for uri, want := range map[string]string{
		"skill://my-skill":             "My body",
		"skill://my-skill/":            "My body",
		"skill://my-skill/SKILL.md":    "My body",
		"skill://plug/deploy":          "Deploy body",
		"skill://plug/deploy/SKILL.md": "Deploy body",
	} {
		res, err := reg.ResolveURI(ctx, uri, ext.Scope{})
		if err != nil || len(res) != 1 || !strings.Contains(res[0].Text, want) {
			t.Errorf("ResolveURI(%s) = %+v, %v; want %q", uri, res, err, want)
		}
	}
	for _, uri := range []string{"skill://nosuch", "skill://my-skill/nosuch.md", "skill://plug", "skill://plug/nosuch"} {
		if _, err := reg.ResolveURI(ctx, uri, ext.Scope{}); !errors.Is(err, ext.ErrNotFound) {
			t.Errorf("ResolveURI(%s) = %v, want ErrNotFound", uri, err)
		}
	}
}

// TestMistypedSkillURIHint: through the registry's routing, a skill:// URI whose skill path
// matches a skill's but for case, "-" and "_" is still ErrNotFound (no other skill is served in
// its place), with a hint naming the URI it may have meant, its file path kept; a URI near no
// skill gets none.
func TestMistypedSkillURIHint(t *testing.T) {
	reg, user := routedSkills(t, "hello-world", "Hello body")
	write(t, user, "hello-world/references/a.md", "a")
	ctx := context.Background()
	for uri, want := range map[string]string{
		"skill://hello_world":                    "skill://hello-world",
		"skill://Hello_World/SKILL.md":           "skill://hello-world/SKILL.md",
		"skill://HELLOWORLD/references/a.md":     "skill://hello-world/references/a.md",
		"skill://plug/De_Ploy":                   "skill://plug/deploy",
		"skill://nosuch":                         "",
		"skill://hello-world/references/nope.md": "",
	} {
		res, err := reg.ResolveURI(ctx, uri, ext.Scope{})
		if !errors.Is(err, ext.ErrNotFound) {
			t.Errorf("ResolveURI(%s) = %+v, %v; want ErrNotFound", uri, res, err)
			continue
		}
		hint := "did you mean " + want + "?"
		if want != "" && !strings.Contains(err.Error(), hint) {
			t.Errorf("ResolveURI(%s): %v; want the hint %q", uri, err, hint)
		}
		if want == "" && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("ResolveURI(%s): %v; want no hint", uri, err)
		}
	}
}

// TestLoadSkillNormalisedName: load_skill finds a skill whatever the case of the name and
// whether it is written with "_", "-" or neither; a name that two skills share so normalised is
// an error naming both; a name nothing matches is an error listing the skills the model may
// load (never one marked disable-model-invocation); a bare name still never reaches a
// namespaced skill.
func TestLoadSkillNormalisedName(t *testing.T) {
	base := t.TempDir()
	user := filepath.Join(base, "user")
	plug := filepath.Join(base, "plug", "skills")
	write(t, user, "my-skill/SKILL.md", skillMD("name: my-skill\ndescription: Mine.\n", "My body"))
	write(t, user, "code-review/SKILL.md", skillMD("name: code-review\ndescription: Hyphenated.\n", "Hyphen body"))
	write(t, user, "codereview/SKILL.md", skillMD("name: codereview\ndescription: One word.\n", "One-word body"))
	write(t, user, "secret-op/SKILL.md", skillMD("name: secret-op\ndescription: User only.\ndisable-model-invocation: true\n", "Secret body"))
	write(t, plug, "deploy/SKILL.md", skillMD("name: deploy\ndescription: Deploys.\n", "Deploy body"))
	m := newTestManager(t, &Options{Roots: []string{user}, NamespacedRoots: []NamespacedRoot{{Namespace: "plug", Dir: plug}}})
	for name, want := range map[string]string{
		"my_skill": "My body", "My-Skill": "My body", "MY_SKILL": "My body", " my_skill ": "My body", "MySkill": "My body",
		"plug:DEPLOY": "Deploy body", "Plug:deploy": "Deploy body",
		// Exact names win over their normalised neighbours.
		"codereview": "One-word body", "code-review": "Hyphen body",
	} {
		if res := loadSkill(t, m, name); res.IsError || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("load_skill %q = %+v, want %q", name, res, want)
		}
	}
	res := loadSkill(t, m, "Code_Review")
	if text := res.Content[0].Text; !res.IsError || !strings.Contains(text, "ambiguous") ||
		!strings.Contains(text, `"code-review" or "codereview"`) || strings.Contains(text, "body") {
		t.Errorf("load_skill Code_Review = %+v, want an error naming both candidates", res)
	}
	if res := loadSkill(t, m, "Secret_Op"); !res.IsError || !strings.Contains(res.Content[0].Text, "disable-model-invocation") {
		t.Errorf("load_skill Secret_Op = %+v, want the user-only refusal", res)
	}
	res = loadSkill(t, m, "unrelated")
	if text := res.Content[0].Text; !res.IsError || !strings.Contains(text, `No skill named "unrelated"`) ||
		!strings.Contains(text, "Skills you can load: code-review, codereview, my-skill, plug:deploy.") || strings.Contains(text, "secret-op") {
		t.Errorf("load_skill unrelated = %+v, want the model-invocable skills listed", res)
	}
	if res := loadSkill(t, m, "deploy"); !res.IsError || strings.Contains(res.Content[0].Text, "Deploy body") {
		t.Errorf("load_skill deploy reached the namespaced skill: %+v", res)
	}
}

// TestSubscribeResource: a watching manager accepts subscriptions to its skills' files and to
// a skill's own URI, refuses what it lacks with ErrNotFound, and refuses everything when it
// does not watch (no update would come); after Close both methods return ErrClosed.
func TestSubscribeResource(t *testing.T) {
	root := t.TempDir()
	write(t, root, "my-skill/SKILL.md", skillMD("name: my-skill\ndescription: Mine.\n", "My body"))
	write(t, root, "my-skill/notes.md", "notes")
	ctx := context.Background()
	watching := newTestManager(t, &Options{Roots: []string{root}, Watch: true})
	for _, uri := range []string{"skill://my-skill/SKILL.md", "skill://my-skill", "skill://my-skill/notes.md"} {
		if err := watching.SubscribeResource(ctx, uri); err != nil {
			t.Errorf("subscribe %s: %v", uri, err)
		}
		if err := watching.UnsubscribeResource(ctx, uri); err != nil {
			t.Errorf("unsubscribe %s: %v", uri, err)
		}
	}
	for _, uri := range []string{"skill://nosuch/SKILL.md", "skill://my-skill/nosuch.md", "test://x"} {
		if err := watching.SubscribeResource(ctx, uri); !errors.Is(err, ext.ErrNotFound) {
			t.Errorf("subscribe %s = %v, want ErrNotFound", uri, err)
		}
	}
	still := newTestManager(t, &Options{Roots: []string{root}})
	if err := still.SubscribeResource(ctx, "skill://my-skill/SKILL.md"); err == nil || !strings.Contains(err.Error(), "not watched") {
		t.Errorf("subscribe without a watcher = %v, want a refusal saying why", err)
	}
	_ = watching.Close(ctx)
	if err := watching.SubscribeResource(ctx, "skill://my-skill/SKILL.md"); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("subscribe after Close = %v", err)
	}
	if err := watching.UnsubscribeResource(ctx, "skill://my-skill/SKILL.md"); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("unsubscribe after Close = %v", err)
	}
}
