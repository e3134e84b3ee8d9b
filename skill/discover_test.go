package skill

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// write creates root/rel with content, making folders as needed.
func write(t testing.TB, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// symlink creates link -> target (both absolute).
func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// skillMD builds a SKILL.md with the given frontmatter lines and body.
func skillMD(front, body string) string {
	return "---\n" + front + "---\n" + body
}

// wantDiag is one expected diagnostic: the severity, line, rule and a part of the message.
type wantDiag struct {
	line int
	sev  Severity
	rule Rule
	msg  string
}

// generatedCase is one file of the generated corpus and what discovery must say about it.
type generatedCase struct {
	name    string // what the case covers
	rel     string // file path below the temporary folder ("r1/..." or "r2/...")
	content string
	skill   string // name the skill loads under; "" = skipped
	diags   []wantDiag
}

func generatedCases() []generatedCase {
	long := strings.Repeat("x", 1030)
	bigBody := strings.Repeat("Body line that is long enough to matter.\n", 2000) // ~80 KiB
	junk := make([]byte, 3000)
	rand.New(rand.NewSource(1)).Read(junk)
	junk = bytes.ReplaceAll(junk, []byte("---"), []byte("-x-"))
	return []generatedCase{
		{name: "BOM", rel: "r1/bom/SKILL.md", content: "\uFEFF" + skillMD("name: bom\ndescription: Starts with a BOM.\n", "Body"), skill: "bom"},
		{name: "CRLF", rel: "r1/crlf/SKILL.md", content: "---\r\nname: crlf\r\ndescription: Windows line ends.\r\n---\r\nBody\r\n", skill: "crlf"},
		{name: "lone CR", rel: "r1/lonecr/SKILL.md", content: "---\rname: lonecr\rdescription: Classic Mac line ends.\r---\rBody\r", skill: "lonecr"},
		{name: "no frontmatter", rel: "r1/nofront/SKILL.md", content: "# Just Markdown\n\nNo header.\n",
			diags: []wantDiag{{1, SeverityError, RuleFrontmatter, "no frontmatter"}}},
		{name: "unclosed frontmatter", rel: "r1/unclosed/SKILL.md", content: "---\nname: unclosed\ndescription: Never closed.\n\nBody\n",
			diags: []wantDiag{{1, SeverityError, RuleFrontmatter, "never closed"}}},
		{name: "unquoted key: value: x", rel: "r1/colon/SKILL.md", content: skillMD("name: colon\ndescription: Use when: the user asks\n", "Body"), skill: "colon",
			diags: []wantDiag{{3, SeverityWarning, RuleYAML, "unquoted value contains"}}},
		{name: "allowed-tools list", rel: "r1/tools-list/SKILL.md", content: skillMD("name: tools-list\ndescription: Tools as a list.\nallowed-tools:\n  - Read\n  - Bash(git:*)\n", "Body"), skill: "tools-list",
			diags: []wantDiag{{4, SeverityWarning, RuleAllowedTools, "allowed-tools is a list"}}},
		{name: "allowed-tools string", rel: "r1/tools-string/SKILL.md", content: skillMD("name: tools-string\ndescription: Tools as a string.\nallowed-tools: Bash(git diff:*) Read, Write\n", "Body"), skill: "tools-string"},
		{name: "nested and non-string metadata", rel: "r1/meta/SKILL.md", content: skillMD("name: meta\ndescription: Odd metadata.\nmetadata:\n  author: me\n  version: 1.0\n  beta: true\n  tags: [a, b]\n  owner:\n    team: x\n", "Body"), skill: "meta",
			diags: []wantDiag{
				{4, SeverityWarning, RuleMetadata, `metadata "beta" is a boolean`},
				{4, SeverityWarning, RuleMetadata, `metadata "owner" is a mapping`},
				{4, SeverityWarning, RuleMetadata, `metadata "tags" is a list`},
				{4, SeverityWarning, RuleMetadata, `metadata "version" is a number`},
			}},
		{name: "Title Case name with spaces", rel: "r1/pdf-processing/SKILL.md", content: skillMD("name: PDF Processing\ndescription: Title case name.\n", "Body"), skill: "pdf-processing",
			diags: []wantDiag{
				{2, SeverityWarning, RuleName, "may hold only lowercase"},
				{2, SeverityWarning, RuleNameFolder, "does not match its folder"},
				{2, SeverityWarning, "", `using "pdf-processing"`},
			}},
		{name: "name differs from folder", rel: "r1/folder-name/SKILL.md", content: skillMD("name: other-name\ndescription: Name is not the folder.\n", "Body"), skill: "other-name",
			diags: []wantDiag{{2, SeverityWarning, RuleNameFolder, `name "other-name" does not match its folder "folder-name"`}}},
		{name: "duplicate across roots (winner)", rel: "r1/dup/SKILL.md", content: skillMD("name: dup\ndescription: First root.\n", "Body"), skill: "dup"},
		{name: "duplicate across roots (loser)", rel: "r2/dup/SKILL.md", content: skillMD("name: dup\ndescription: Second root.\n", "Body"),
			diags: []wantDiag{{2, SeverityWarning, "", "is shadowed by"}}},
		{name: "duplicate within a root (winner)", rel: "r1/a/same/SKILL.md", content: skillMD("name: same\ndescription: First.\n", "Body"), skill: "same"},
		{name: "duplicate within a root (loser)", rel: "r1/b/same/SKILL.md", content: skillMD("name: same\ndescription: Second.\n", "Body"),
			diags: []wantDiag{{2, SeverityWarning, "", "found first in the same root"}}},
		{name: "nested skill (outer)", rel: "r1/outer/SKILL.md", content: skillMD("name: outer\ndescription: Holds a skill.\n", "Body"), skill: "outer"},
		{name: "nested skill (inner)", rel: "r1/outer/inner/SKILL.md", content: skillMD("name: inner\ndescription: Inside outer.\n", "Body"), skill: "inner"},
		{name: "64 KiB+ body", rel: "r1/big/SKILL.md", content: skillMD("name: big\ndescription: Big body.\n", bigBody), skill: "big"},
		{name: "frontmatter beyond 64 KiB", rel: "r1/huge-front/SKILL.md", content: "---\n" + strings.Repeat("# padding comment line\n", 3500) + "name: huge-front\ndescription: x\n---\n",
			diags: []wantDiag{{1, SeverityError, RuleFrontmatter, "within the first 64 KiB"}}},
		{name: "binary junk", rel: "r1/junk/SKILL.md", content: string(junk),
			diags: []wantDiag{{1, SeverityError, RuleFrontmatter, "no frontmatter"}}},
		{name: "binary junk in frontmatter", rel: "r1/junk-front/SKILL.md", content: "---\n\x00\x01\x02: [\xff\xfe\n---\nBody",
			diags: []wantDiag{
				{2, SeverityWarning, RuleYAML, "not valid UTF-8"},
				{2, SeverityError, RuleYAML, "not valid YAML"},
			}},
		{name: "invalid UTF-8", rel: "r1/utf8/SKILL.md", content: skillMD("name: utf8\ndescription: Bad \xff\xfe bytes.\n", "Body \xff"), skill: "utf8",
			diags: []wantDiag{{3, SeverityWarning, RuleYAML, "not valid UTF-8"}}},
		{name: "missing description", rel: "r1/nodesc/SKILL.md", content: skillMD("name: nodesc\n", "Body"),
			diags: []wantDiag{{1, SeverityError, RuleDescription, "description is missing"}}},
		{name: "empty description", rel: "r1/emptydesc/SKILL.md", content: skillMD("name: emptydesc\ndescription: \"  \"\n", "Body"),
			diags: []wantDiag{{3, SeverityError, RuleDescription, "description is empty"}}},
		{name: "unparseable YAML", rel: "r1/badyaml/SKILL.md", content: skillMD("name: badyaml\ndescription: [unclosed\n", "Body"),
			diags: []wantDiag{{3, SeverityError, RuleYAML, "not valid YAML"}}},
		{name: "frontmatter not a mapping", rel: "r1/list/SKILL.md", content: skillMD("- a\n- b\n", "Body"),
			diags: []wantDiag{{2, SeverityError, RuleYAML, "not a mapping"}}},
		{name: "non-string description", rel: "r1/numdesc/SKILL.md", content: skillMD("name: numdesc\ndescription: 42\n", "Body"), skill: "numdesc",
			diags: []wantDiag{{3, SeverityWarning, RuleDescription, "is an integer, not a string"}}},
		{name: "long description", rel: "r1/longdesc/SKILL.md", content: skillMD("name: longdesc\ndescription: "+long+"\n", "Body"), skill: "longdesc",
			diags: []wantDiag{{3, SeverityWarning, RuleDescription, "1030 characters, more than 1024"}}},
		{name: "long compatibility", rel: "r1/compat/SKILL.md", content: skillMD("name: compat\ndescription: d\ncompatibility: "+long[:501]+"\n", "Body"), skill: "compat",
			diags: []wantDiag{{4, SeverityWarning, RuleCompatibility, "501 characters, more than 500"}}},
		{name: "unknown and client keys", rel: "r1/keys/SKILL.md", content: skillMD("name: keys\ndescription: d\nuser-invocable: false\nfoo: bar\n", "Body"), skill: "keys",
			diags: []wantDiag{{5, SeverityWarning, RuleUnknownKey, `key "foo" is not defined`}}},
		{name: "name with bad hyphens", rel: "r1/-bad--name-/SKILL.md", content: skillMD("name: -bad--name-\ndescription: d\n", "Body"), skill: "bad-name",
			diags: []wantDiag{
				{2, SeverityWarning, RuleName, "must not start or end with a hyphen"},
				{2, SeverityWarning, RuleName, "must not contain consecutive hyphens"},
				{2, SeverityWarning, "", `using "bad-name"`},
			}},
		{name: "too deep", rel: "r1/d1/d2/d3/d4/d5/d6/deep/SKILL.md", content: skillMD("name: deep\ndescription: d\n", "Body"),
			diags: []wantDiag{{0, SeverityWarning, "", "7 levels below its root"}}},
		{name: "node_modules skipped", rel: "r1/node_modules/nm/SKILL.md", content: skillMD("name: nm\ndescription: d\n", "Body")},
		{name: ".git skipped", rel: "r1/.git/gitskill/SKILL.md", content: skillMD("name: gitskill\ndescription: d\n", "Body")},
		{name: ".jj skipped", rel: "r1/.jj/jjskill/SKILL.md", content: skillMD("name: jjskill\ndescription: d\n", "Body")},
		{name: ".venv skipped", rel: "r1/.venv/venvskill/SKILL.md", content: skillMD("name: venvskill\ndescription: d\n", "Body")},
		{name: "other dot-folder scanned", rel: "r1/.hidden/hid/SKILL.md", content: skillMD("name: hid\ndescription: d\n", "Body"), skill: "hid"},
	}
}

// TestGeneratedCorpus builds a corpus of every known oddity and checks that none crashes and
// each yields exactly its documented diagnostics.
func TestGeneratedCorpus(t *testing.T) {
	base := t.TempDir()
	cases := generatedCases()
	for _, c := range cases {
		write(t, base, c.rel, c.content)
	}
	r1, r2 := filepath.Join(base, "r1"), filepath.Join(base, "r2")
	// A symlinked skill folder, a symlink cycle, and a SKILL.md symlinked from outside.
	outside := filepath.Join(base, "outside")
	write(t, outside, "linked/SKILL.md", skillMD("name: linked\ndescription: Reached through a symlink.\n", "Body"))
	symlink(t, filepath.Join(outside, "linked"), filepath.Join(r1, "linked"))
	write(t, r1, "cyc/SKILL.md", skillMD("name: cyc\ndescription: Holds a link to itself.\n", "Body"))
	symlink(t, filepath.Join(r1, "cyc"), filepath.Join(r1, "cyc", "loop"))
	write(t, outside, "stolen.md", skillMD("name: stolen\ndescription: Outside.\n", "Body"))
	symlink(t, filepath.Join(outside, "stolen.md"), filepath.Join(r1, "stolen", "SKILL.md"))

	skills, diags := Discover([]string{r1, r2}, nil)

	byPath := map[string][]Diagnostic{}
	for _, d := range diags {
		if d.Line < 0 {
			t.Errorf("negative line: %v", d)
		}
		byPath[d.Path] = append(byPath[d.Path], d)
	}
	loaded := map[string]*Skill{}
	for _, s := range skills {
		loaded[s.Name] = s
	}
	extra := []generatedCase{
		{name: "symlinked skill folder", rel: "r1/linked/SKILL.md", skill: "linked"},
		{name: "symlink cycle (skill)", rel: "r1/cyc/SKILL.md", skill: "cyc"},
		{name: "symlink cycle (link)", rel: "r1/cyc/loop",
			diags: []wantDiag{{0, SeverityWarning, "", "already scanned"}}},
		{name: "SKILL.md symlinked from outside", rel: "r1/stolen/SKILL.md",
			diags: []wantDiag{{0, SeverityError, RuleSkillFile, "outside the skill folder"}}},
	}
	for _, c := range append(cases, extra...) {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(base, filepath.FromSlash(c.rel))
			got := byPath[path]
			delete(byPath, path)
			if len(got) != len(c.diags) {
				t.Fatalf("%s: got %d diagnostics, want %d:\n%s", c.rel, len(got), len(c.diags), diagList(got))
			}
			for i, w := range c.diags {
				g := got[i]
				if g.Line != w.line || g.Severity != w.sev || g.Rule != w.rule || !strings.Contains(g.Message, w.msg) {
					t.Errorf("%s: diagnostic %d = %v (rule %q), want line %d %s rule %q containing %q", c.rel, i, g, g.Rule, w.line, w.sev, w.rule, w.msg)
				}
			}
			if c.skill == "" {
				return
			}
			s := loaded[c.skill]
			if s == nil {
				t.Fatalf("skill %q not loaded", c.skill)
			}
			if s.Path != path {
				t.Errorf("skill %q loaded from %s, want %s", c.skill, s.Path, path)
			}
			if _, err := s.Body(); err != nil {
				t.Errorf("skill %q body: %v", c.skill, err)
			}
		})
	}
	for p, ds := range byPath {
		t.Errorf("unexpected diagnostics for %s:\n%s", p, diagList(ds))
	}
	for _, name := range []string{"deep", "nm", "gitskill", "jjskill", "venvskill", "stolen"} {
		if loaded[name] != nil {
			t.Errorf("skill %q should not load", name)
		}
	}

	// Spot checks of what the lenient reading produced.
	if got := loaded["tools-list"].AllowedTools; !slices.Equal(got, []string{"Read", "Bash(git:*)"}) {
		t.Errorf("tools-list allowed-tools = %q", got)
	}
	if got := loaded["tools-string"].AllowedTools; !slices.Equal(got, []string{"Bash(git diff:*)", "Read", "Write"}) {
		t.Errorf("tools-string allowed-tools = %q", got)
	}
	meta := loaded["meta"].Metadata
	if meta["version"] != "1.0" || meta["beta"] != "true" || meta["tags"] != `["a","b"]` || meta["owner"] != `{"team":"x"}` || meta["author"] != "me" {
		t.Errorf("meta metadata = %q", meta)
	}
	if d := loaded["colon"].Description; d != "Use when: the user asks" {
		t.Errorf("colon description = %q", d)
	}
	if s := loaded["pdf-processing"]; s.DeclaredName != "PDF Processing" {
		t.Errorf("declared name = %q", s.DeclaredName)
	}
	if body, _ := loaded["crlf"].Body(); body != "Body" {
		t.Errorf("crlf body = %q", body)
	}
	if body, _ := loaded["big"].Body(); len(body) < 64<<10 {
		t.Errorf("big body = %d bytes", len(body))
	}
	if loaded["keys"].UserInvocable || loaded["keys"].Extra["foo"] != "bar" {
		t.Errorf("keys: user-invocable %v, extra %v", loaded["keys"].UserInvocable, loaded["keys"].Extra)
	}
	if loaded["dup"].Root != r1 || loaded["same"].Path != filepath.Join(r1, "a", "same", "SKILL.md") {
		t.Errorf("precedence: dup from %s, same from %s", loaded["dup"].Root, loaded["same"].Path)
	}
	if s := loaded["linked"]; s.Dir != filepath.Join(r1, "linked") || s.RealDir() != filepath.Join(outside, "linked") {
		t.Errorf("linked: dir %s real %s", s.Dir, s.RealDir())
	}
	if d := loaded["utf8"].Description; !strings.Contains(d, "\uFFFD") {
		t.Errorf("utf8 description = %q", d)
	}
}

func diagList(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + d.String() + " [rule " + string(d.Rule) + "]\n")
	}
	return b.String()
}

// TestScanLimits checks the folder budget and the depth bound.
func TestScanLimits(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		write(t, root, n+"/SKILL.md", skillMD("name: "+n+"\ndescription: d\n", "Body"))
	}
	skills, diags := Discover([]string{root}, &DiscoverOptions{MaxFolders: 3})
	if len(skills) != 2 { // the root counts as one folder
		t.Errorf("loaded %d skills with MaxFolders 3, want 2", len(skills))
	}
	if len(diags) != 1 || diags[0].Severity != SeverityWarning || !strings.Contains(diags[0].Message, "more than 3 folders") || diags[0].Path != root {
		t.Errorf("diagnostics = %v", diags)
	}
	write(t, root, "x/y/z/SKILL.md", skillMD("name: z\ndescription: d\n", "Body"))
	skills, _ = Discover([]string{root}, &DiscoverOptions{MaxDepth: 2})
	for _, s := range skills {
		if s.Name == "z" {
			t.Errorf("skill at depth 3 found with MaxDepth 2")
		}
	}
	skills, _ = Discover([]string{root}, &DiscoverOptions{MaxDepth: 3})
	if !slices.ContainsFunc(skills, func(s *Skill) bool { return s.Name == "z" }) {
		t.Errorf("skill at depth 3 not found with MaxDepth 3")
	}
}

// TestRootVariants covers a missing root, a file as root, a root that is a skill, and two roots
// that are one folder.
func TestRootVariants(t *testing.T) {
	base := t.TempDir()
	file := write(t, base, "file", "x")
	single := filepath.Join(base, "single")
	write(t, single, "SKILL.md", skillMD("name: single\ndescription: d\n", "Body"))
	link := filepath.Join(base, "link")
	symlink(t, single, link)
	skills, diags := Discover([]string{filepath.Join(base, "missing"), file, single, link}, nil)
	if len(skills) != 1 || skills[0].Name != "single" {
		t.Errorf("skills = %v", skills)
	}
	var msgs string
	for _, d := range diags {
		msgs += d.Path + ": " + d.Message + "\n"
	}
	if len(diags) != 3 || !strings.Contains(msgs, "file: skill root is not a folder") ||
		!strings.Contains(msgs, "link: skill root is the same folder as") || !strings.Contains(msgs, "missing: skill root does not exist") {
		t.Errorf("diagnostics = %v", diags)
	}
	// A default root that does not exist is not reported: most users have only some of them.
	if _, diags := Discover(nil, &DiscoverOptions{DefaultRoots: []string{filepath.Join(base, "missing")}}); len(diags) != 0 {
		t.Errorf("missing default root: diagnostics = %v", diags)
	}
}

// TestDefaultRoots checks order and de-duplication.
func TestDefaultRoots(t *testing.T) {
	got := DefaultRoots("/p", "/h")
	want := []string{"/p/.agents/skills", "/p/.claude/skills", "/h/.agents/skills", "/h/.claude/skills"}
	if !slices.Equal(got, want) {
		t.Errorf("DefaultRoots = %q", got)
	}
	if got := DefaultRoots("/h", "/h"); len(got) != 2 {
		t.Errorf("DefaultRoots(same) = %q", got)
	}
	if got := DefaultRoots("", "/h"); !slices.Equal(got, want[2:]) {
		t.Errorf("DefaultRoots(no project) = %q", got)
	}
}

// TestValidateGenerated checks strict validation against generated skills: each strict rule,
// and client keys counted as unknown.
func TestValidateGenerated(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		rel, content string
		rules        []Rule
	}{
		{"ok/SKILL.md", skillMD("name: ok\ndescription: Fine.\nlicense: MIT\ncompatibility: Any\nmetadata:\n  a: b\nallowed-tools: Read\n", "Body"), nil},
		{"client/SKILL.md", skillMD("name: client\ndescription: d\nuser-invocable: false\n", "Body"), []Rule{RuleUnknownKey}},
		{"Bad_Name/SKILL.md", skillMD("name: Bad_Name\ndescription: d\n", "Body"), []Rule{RuleName}},
		{"folder/SKILL.md", skillMD("name: other\ndescription: d\n", "Body"), []Rule{RuleNameFolder}},
		{"tools/SKILL.md", skillMD("name: tools\ndescription: d\nallowed-tools: [Read]\n", "Body"), []Rule{RuleAllowedTools}},
		{"meta/SKILL.md", skillMD("name: meta\ndescription: d\nmetadata:\n  v: 2\n", "Body"), []Rule{RuleMetadata}},
		{"colon/SKILL.md", skillMD("name: colon\ndescription: a: b\n", "Body"), []Rule{RuleYAML}},
		{"nofront/SKILL.md", "Body", []Rule{RuleFrontmatter}},
		{"nodesc/SKILL.md", skillMD("name: nodesc\n", "Body"), []Rule{RuleDescription}},
		{"compat/SKILL.md", skillMD("name: compat\ndescription: d\ncompatibility: \"\"\n", "Body"), []Rule{RuleCompatibility}},
		{"noname/SKILL.md", skillMD("description: d\n", "Body"), []Rule{RuleName}},
	}
	for _, c := range cases {
		p := write(t, root, c.rel, c.content)
		diags, err := Validate(p)
		if err != nil {
			t.Fatal(err)
		}
		var rules []Rule
		for _, d := range diags {
			if d.Severity != SeverityError || d.Path != p || d.Line < 1 {
				t.Errorf("%s: %v", c.rel, d)
			}
			rules = append(rules, d.Rule)
		}
		if !slices.Equal(rules, c.rules) {
			t.Errorf("%s: rules %q, want %q\n%s", c.rel, rules, c.rules, diagList(diags))
		}
	}
	if _, err := Validate(filepath.Join(root, "missing")); err == nil {
		t.Error("Validate(missing) gave no error")
	}
	empty := t.TempDir()
	if ds, err := Validate(empty); err != nil || len(ds) != 1 || ds[0].Rule != RuleSkillFile {
		t.Errorf("Validate(empty folder) = %v, %v", ds, err)
	}
}
