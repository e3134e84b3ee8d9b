package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
)

// listedNames returns the skill names of a catalogue's <name> elements, in order.
func listedNames(static string) []string {
	var names []string
	block, _, _ := strings.Cut(static, catalogueClose)
	for _, part := range strings.Split(block, "<name>")[1:] {
		name, _, _ := strings.Cut(part, "</name>")
		names = append(names, name)
	}
	return names
}

func staticOf(t *testing.T, m *Manager) ext.Instructions {
	t.Helper()
	ins, err := m.Instructions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// TestCatalogueBudgetCorpus serves the real corpus under budgets that cut it: the catalogue
// stays within each budget, lists a name-sorted selection ending with a line counting the
// others, and every skill cut is still loaded by load_skill and read by its skill:// URI.
func TestCatalogueBudgetCorpus(t *testing.T) {
	root := corpus(t)
	ctx := context.Background()
	full := staticOf(t, newTestManager(t, &Options{Roots: []string{root}}))
	if full.Catalogue == nil || full.Catalogue.Budget != 0 || len(full.Catalogue.Cut) != 0 ||
		full.Catalogue.Chars != utf8.RuneCountInString(full.Static) || full.Catalogue.Bytes != len(full.Static) {
		t.Fatalf("catalogue without a budget: %+v (static %d bytes)", full.Catalogue, len(full.Static))
	}
	all := listedNames(full.Static)
	if !slices.IsSorted(all) || len(all) != full.Catalogue.Listed {
		t.Fatalf("catalogue without a budget lists %v, reported %d", all, full.Catalogue.Listed)
	}
	for _, budget := range []int{DefaultCatalogueBudget, 4000, 1500} {
		if budget >= full.Catalogue.Chars {
			continue
		}
		m := newTestManager(t, &Options{Roots: []string{root}, CatalogueBudget: budget})
		ins := staticOf(t, m)
		c := ins.Catalogue
		chars := utf8.RuneCountInString(ins.Static)
		if c == nil || chars > budget || c.Chars != chars || c.Bytes != len(ins.Static) || c.Budget != budget {
			t.Fatalf("budget %d: catalogue %d characters, report %+v", budget, chars, c)
		}
		listed := listedNames(ins.Static)
		if len(listed) == 0 || !slices.IsSorted(listed) || len(listed) != c.Listed || len(listed)+len(c.Cut) != len(all) {
			t.Fatalf("budget %d: listed %v, cut %v, of %d", budget, listed, c.Cut, len(all))
		}
		lines := strings.Split(ins.Static, "\n")
		last := lines[len(lines)-1]
		if lines[len(lines)-2] != catalogueClose || !strings.HasPrefix(last, catalogueMore(len(c.Cut))[:10]) ||
			last != catalogueMore(len(c.Cut)) || !strings.Contains(last, "load_skill") || !strings.Contains(last, "skill://") {
			t.Errorf("budget %d: catalogue ends %q", budget, strings.Join(lines[len(lines)-2:], "\n"))
		}
		t.Logf("budget %d: %d characters, %d listed, cut %v", budget, chars, len(listed), c.Cut)
		for _, name := range c.Cut {
			if slices.Contains(listed, name) || !slices.Contains(all, name) {
				t.Errorf("budget %d: %q both cut and listed, or unknown", budget, name)
			}
			res, err := m.CallTool(ctx, &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(`{"name":"` + name + `"}`)})
			if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, `<skill_content name="`+name+`">`) {
				t.Errorf("load_skill %q (cut) = %v, %v", name, res, err)
			}
			if text := readText(m, "skill://"+name+"/SKILL.md"); !strings.Contains(text, "description:") {
				t.Errorf("skill://%s/SKILL.md (cut) read %d bytes", name, len(text))
			}
		}
	}
}

// TestCatalogueBudgetPrecedence: the skills kept are those of the higher-precedence root,
// then by name; the catalogue is still sorted by name.
func TestCatalogueBudgetPrecedence(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	for _, n := range []string{"zeta", "yak"} {
		write(t, first, filepath.Join(n, "SKILL.md"), "---\nname: "+n+"\ndescription: Skill "+n+" of the first root.\n---\nBody.\n")
	}
	for _, n := range []string{"alpha", "beta", "gamma", "delta", "eta"} {
		write(t, second, filepath.Join(n, "SKILL.md"), "---\nname: "+n+"\ndescription: Skill "+n+" of the second root.\n---\nBody.\n")
	}
	opts := &Options{Roots: []string{first, second}}
	m := newTestManager(t, opts)
	full := staticOf(t, m)
	// Room for three entries and the closing line: yak and zeta (first root), then alpha.
	opts.CatalogueBudget = utf8.RuneCountInString(catalogueIntro+catalogueOpen+catalogueClose+"\n"+catalogueMore(4)) +
		utf8.RuneCountInString(catalogueEntry(m.Skill("yak"))+catalogueEntry(m.Skill("zeta"))+catalogueEntry(m.Skill("alpha")))
	ins := staticOf(t, newTestManager(t, opts))
	if got := listedNames(ins.Static); !slices.Equal(got, []string{"alpha", "yak", "zeta"}) ||
		!slices.Equal(ins.Catalogue.Cut, []string{"beta", "delta", "eta", "gamma"}) || utf8.RuneCountInString(ins.Static) != opts.CatalogueBudget {
		t.Errorf("budget %d listed %v, cut %v; want alpha yak zeta, cut beta delta eta gamma, the budget used up:\n%s", opts.CatalogueBudget, got, ins.Catalogue.Cut, ins.Static)
	}
	if !strings.HasSuffix(ins.Static, "</available-skills>\n4 more skills are not listed here: "+catalogueReach) {
		t.Errorf("catalogue ends:\n%s", ins.Static)
	}
	opts.CatalogueBudget--
	if got := listedNames(staticOf(t, newTestManager(t, opts)).Static); !slices.Equal(got, []string{"yak", "zeta"}) {
		t.Errorf("budget %d listed %v, want yak zeta", opts.CatalogueBudget, got)
	}
	// A budget too small for one skill leaves the line alone.
	opts.CatalogueBudget = 10
	ins = staticOf(t, newTestManager(t, opts))
	if ins.Static != catalogueNone(7) || ins.Catalogue.Listed != 0 || len(ins.Catalogue.Cut) != 7 {
		t.Errorf("budget 10: %q, %+v", ins.Static, ins.Catalogue)
	}
	// No budget, or one that holds everything, is the catalogue as it always was.
	opts.CatalogueBudget = full.Catalogue.Chars
	if ins = staticOf(t, newTestManager(t, opts)); ins.Static != full.Static || len(ins.Catalogue.Cut) != 0 {
		t.Errorf("a budget holding every skill changed the catalogue:\n%s", ins.Static)
	}
}

// TestCatalogueBudgetByteStable: two managers over the same skills give the same bytes, and a
// hot reload that changes nothing the catalogue lists (a cut skill's body and description, a
// listed skill's body) leaves them as they were.
func TestCatalogueBudgetByteStable(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(corpus(t))); err != nil {
		t.Fatal(err)
	}
	a := staticOf(t, newTestManager(t, &Options{Roots: []string{root}, CatalogueBudget: 4000}))
	m := newTestManager(t, &Options{Roots: []string{root}, CatalogueBudget: 4000, Watch: true, Debounce: 50e6})
	b := staticOf(t, m)
	if a.Static != b.Static || len(a.Catalogue.Cut) == 0 {
		t.Fatalf("two builds differ, or nothing cut (%v):\n%s\n---\n%s", a.Catalogue.Cut, a.Static, b.Static)
	}
	listed := listedNames(a.Static)
	cut := m.Skill(a.Catalogue.Cut[len(a.Catalogue.Cut)-1])
	kept := m.Skill(listed[0])
	r := record(m)
	mark := r.mark()
	edit := func(s *Skill, old, new string) {
		data, err := os.ReadFile(s.Path)
		if err != nil || !strings.Contains(string(data), old) {
			t.Fatalf("%s: %q not found (%v)", s.Path, old, err)
		}
		if err := os.WriteFile(s.Path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(cut, "description: Use when", "description: Edited. Use when")
	edit(kept, "\n---\n", "\n---\nAn added first line of the body.\n")
	waitEvents(t, r, mark, ext.ChangeEvent{Capability: m.Name(), Kind: ext.SkillsChanged})
	testwait.For(t, "both edits seen", func() bool {
		body, _ := m.Skill(kept.Name).Body()
		return strings.HasPrefix(m.Skill(cut.Name).Description, "Edited.") && strings.HasPrefix(body, "An added first line")
	})
	if c := staticOf(t, m); c.Static != a.Static {
		t.Errorf("a reload that changed nothing listed changed the catalogue:\n%s\n---\n%s", a.Static, c.Static)
	}
}

// The closing line of a catalogue that cut more skills than a load_skill error lists promises
// only what that error holds: a cut skill the error leaves out is not said to be among "the
// names of every skill".
func TestCatalogueBudgetClosingLineHolds(t *testing.T) {
	root := t.TempDir()
	var names []string
	for i := range maxListedSkills + 20 {
		n := fmt.Sprintf("skill-%03d", i)
		names = append(names, n)
		write(t, root, filepath.Join(n, "SKILL.md"), "---\nname: "+n+"\ndescription: Skill number "+n+".\n---\nBody.\n")
	}
	m := newTestManager(t, &Options{Roots: []string{root}, CatalogueBudget: 1500})
	ins := staticOf(t, m)
	if len(ins.Catalogue.Cut) <= maxListedSkills {
		t.Fatalf("cut %d skills, want more than %d", len(ins.Catalogue.Cut), maxListedSkills)
	}
	lines := strings.Split(ins.Static, "\n")
	last := lines[len(lines)-1]
	res, err := m.CallTool(context.Background(), &ext.ToolCall{Name: LoadSkillTool, Arguments: json.RawMessage(`{"name":"no-such-thing-at-all"}`)})
	if err != nil || !res.IsError {
		t.Fatalf("load_skill of an unknown name = %v, %v", res, err)
	}
	answer := res.Content[0].Text
	for _, name := range ins.Catalogue.Cut {
		if !strings.Contains(answer, name) && (strings.Contains(last, "every skill") || !strings.Contains(last, fmt.Sprintf("first %d skill names", maxListedSkills))) {
			t.Fatalf("the closing line says %q, but a load_skill error does not name %s:\n%s", last, name, answer)
		}
	}
}

// A cut skill of a namespaced root is found as the closing line says: its SKILL.md is read at
// the URI the line gives for its name.
func TestCatalogueBudgetClosingLineNamespaced(t *testing.T) {
	user, plugin := t.TempDir(), t.TempDir()
	write(t, user, filepath.Join("mine", "SKILL.md"), "---\nname: mine\ndescription: The user's skill.\n---\nBody.\n")
	write(t, plugin, filepath.Join("tool", "SKILL.md"), "---\nname: tool\ndescription: The plugin's skill, "+strings.Repeat("described at length ", 40)+".\n---\nBody.\n")
	opts := &Options{Roots: []string{user}, NamespacedRoots: []NamespacedRoot{{Namespace: "plug", Dir: plugin}}}
	m := newTestManager(t, opts)
	opts.CatalogueBudget = utf8.RuneCountInString(catalogueIntro+catalogueOpen+catalogueClose+"\n"+catalogueMore(1)) +
		utf8.RuneCountInString(catalogueEntry(m.Skill("mine")))
	ins := staticOf(t, newTestManager(t, opts))
	if !slices.Equal(ins.Catalogue.Cut, []string{"plug:tool"}) {
		t.Fatalf("cut %v, want plug:tool", ins.Catalogue.Cut)
	}
	lines := strings.Split(ins.Static, "\n")
	last := lines[len(lines)-1]
	for _, uri := range regexp.MustCompile(`skill://\S*SKILL\.md`).FindAllString(last, -1) {
		for ph, part := range map[string]string{"<name>": "plug:tool", "<plugin>": "plug", "<skill>": "tool"} {
			uri = strings.ReplaceAll(uri, ph, part)
		}
		if strings.Contains(uri, "plug") && readText(m, uri) != "" {
			return
		}
	}
	t.Errorf("no URI the closing line gives reads plug:tool's SKILL.md: %q", last)
}
