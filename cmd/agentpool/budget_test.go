package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// skillDefaultBudget is skills.catalogue_budget's default (skill.DefaultCatalogueBudget).
const skillDefaultBudget = 8000

// sharedCorpus is the real-world skill corpus beside the repository (../shared/corpus from its
// root), failing the test when it is missing.
func sharedCorpus(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs("../../../shared/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(abs, "README.md")); err != nil {
		t.Fatalf("real-world skill corpus missing at %s: %v", abs, err)
	}
	return abs
}

// compile shows the skill catalogue's budget, its size and the skills it cut, in text and in
// --json, for the pool's view and for an agent with a budget of its own.
func TestCompileCatalogueBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "skills:\n  watch: false\n  catalogue_budget: 3000\nagents:\n  all:\n    skills: {catalogue_budget: 0}\n")
	args := []string{"--no-default-roots", "--config", cfg, "--skills-dir", sharedCorpus(t), "compile"}
	stdout, stderr, err := runCLI(t, append(args, "--json")...)
	if err != nil {
		t.Fatalf("compile --json: %v\n%s", err, stderr)
	}
	var v struct {
		Instructions struct{ Static string } `json:"instructions"`
		Catalogues   []struct {
			Capability           string
			Budget, Chars, Bytes int
			Listed               int
			Cut                  []string
		} `json:"catalogues"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("compile --json output: %v\n%s", err, stdout)
	}
	if len(v.Catalogues) != 1 {
		t.Fatalf("catalogues = %+v, want the skills'", v.Catalogues)
	}
	c := v.Catalogues[0]
	static := v.Instructions.Static
	if c.Capability != "skills" || c.Budget != 3000 || c.Chars > 3000 || c.Chars != utf8.RuneCountInString(static) ||
		c.Bytes != len(static) || len(c.Cut) == 0 || c.Listed+len(c.Cut) != 26 {
		t.Errorf("catalogue = %+v (static %d characters), want within 3000 of 26 skills, some cut", c, utf8.RuneCountInString(static))
	}
	for _, name := range c.Cut {
		if strings.Contains(static, "<name>"+name+"</name>") {
			t.Errorf("%s is both cut and listed", name)
		}
	}
	stdout, stderr, err = runCLI(t, args...)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, stderr)
	}
	_, section, _ := strings.Cut(stdout, "\n## skill catalogue (1)\n")
	section, _, _ = strings.Cut(section, "\n\n")
	named := c.Cut[:min(20, len(c.Cut))] // the rest are counted
	want := "skills: " + strconv.Itoa(c.Chars) + " of 3000 characters (" + strconv.Itoa(c.Bytes) + " bytes), " + strconv.Itoa(c.Listed) + " listed, " +
		strconv.Itoa(len(c.Cut)) + " cut: " + strings.Join(named, ", ")
	if len(named) < len(c.Cut) {
		want += " and " + strconv.Itoa(len(c.Cut)-len(named)) + " more"
	}
	if section != want {
		t.Errorf("compile's catalogue section = %q, want %q\n%s", section, want, stdout)
	}
	stdout, stderr, err = runCLI(t, append(args, "--agent", "all")...)
	if err != nil {
		t.Fatalf("compile --agent all: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "\n## skill catalogue (1)\nagent-skills: ") || !strings.Contains(stdout, "characters, no budget") ||
		!strings.Contains(stdout, " 26 listed, none cut\n") {
		t.Errorf("compile --agent all does not show a catalogue without a budget:\n%s", stdout)
	}
}

// Through a real `serve --stdio` with the corpus as its skill folder: initialize's instructions
// hold the catalogue within the default budget, the same bytes from a second serve; a skill it
// cut is loaded by load_skill and read by its skill:// URI. The bytes with the default budget
// and with none are printed.
func TestServeCatalogueBudget(t *testing.T) {
	t.Parallel()
	corpus := sharedCorpus(t)
	dir := t.TempDir()
	unlimited := filepath.Join(dir, "unlimited.yaml")
	writeFile(t, unlimited, "skills:\n  catalogue_budget: 0\n")
	args := []string{"--no-default-roots", "--skills-dir", corpus}
	instructions := func(cs *mcp.ClientSession) string { return cs.InitializeResult().Instructions }
	cs := serveStdio(t, nil, args...)
	budgeted := instructions(cs)
	full := instructions(serveStdio(t, nil, append(args, "--config", unlimited)...))
	t.Logf("corpus catalogue in initialize's instructions: %d bytes (%d characters) with the default budget of %d characters, %d bytes (%d characters) with no budget",
		len(budgeted), utf8.RuneCountInString(budgeted), skillDefaultBudget, len(full), utf8.RuneCountInString(full))
	if n := utf8.RuneCountInString(budgeted); n > skillDefaultBudget || n >= utf8.RuneCountInString(full) {
		t.Fatalf("instructions with the default budget: %d characters (no budget: %d)", n, utf8.RuneCountInString(full))
	}
	if again := instructions(serveStdio(t, nil, args...)); again != budgeted {
		t.Errorf("a second serve's instructions differ:\n%s\n---\n%s", budgeted, again)
	}
	var cut []string
	for _, part := range strings.Split(full, "<name>")[1:] {
		name, _, _ := strings.Cut(part, "</name>")
		if !strings.Contains(budgeted, "<name>"+name+"</name>") {
			cut = append(cut, name)
		}
	}
	if len(cut) == 0 || !strings.Contains(budgeted, "\n"+strconv.Itoa(len(cut))+" more skills are not listed here: ") {
		t.Fatalf("cut %v; instructions end:\n%s", cut, budgeted[max(0, len(budgeted)-400):])
	}
	all := strings.Count(full, "<name>")
	t.Logf("with the default budget: %d of %d skills listed, %d cut", all-len(cut), all, len(cut))
	ctx := context.Background()
	for _, name := range cut {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "load_skill", Arguments: map[string]any{"name": name}})
		if err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `<skill_content name="`+name+`">`) {
			t.Errorf("load_skill %s (cut): %v %+v", name, err, res)
		}
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://" + name + "/SKILL.md"})
		if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "description:") {
			t.Errorf("read skill://%s/SKILL.md (cut): %v", name, err)
		}
	}
}

// checkSystemCatalogue checks the skill catalogue of a model request's system prompt: within
// budget characters, with the closing line when it cut (budget > 0), every corpus skill when
// it has no budget.
func checkSystemCatalogue(t *testing.T, what, system string, budget int) {
	t.Helper()
	i := strings.Index(system, "The following skills provide")
	if i < 0 {
		t.Fatalf("%s: the system prompt holds no skill catalogue:\n%s", what, system)
	}
	catalogue, _, _ := strings.Cut(system[i:], "where one is offered, finds skills too.")
	catalogue, _, _ = strings.Cut(catalogue, "\n\n<instructions") // anything after it
	block, _, _ := strings.Cut(catalogue, "</available-skills>")
	names := strings.Count(block, "<name>")
	if budget == 0 {
		if names != 26 || strings.Contains(catalogue, "more skills are not listed") {
			t.Errorf("%s: %d skills in the catalogue without a budget, want 26:\n%s", what, names, catalogue)
		}
		return
	}
	full := catalogue + "where one is offered, finds skills too."
	if n := utf8.RuneCountInString(full); n > budget || !strings.Contains(full, "\n"+strconv.Itoa(26-names)+" more skills are not listed here: ") {
		t.Errorf("%s: catalogue of %d characters listing %d skills, budget %d:\n%s", what, n, names, budget, full)
	}
}

// The agent run loop's system prompt has the same catalogue, within the same budget: `chat`
// and `acp` with skills.catalogue_budget, and as an agent whose own budget is no limit.
func TestAgentLoopCatalogueBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "skills:\n  watch: false\n  catalogue_budget: 3000\nagents:\n  all:\n    skills: {catalogue_budget: 0}\n")
	model := newModelServer(t, func(last modelMessage) modelReply { return modelReply{Text: "ok"} })
	bin, err := exec.LookPath("agentpool")
	if err != nil {
		t.Fatal(err)
	}
	common := []string{"--no-default-roots", "--skills-dir", sharedCorpus(t), "--config", cfg}
	env := append(os.Environ(), "HOME="+dir, "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	lastSystem := func() string {
		reqs := requests(t, model)
		return reqs[len(reqs)-1].system()
	}
	for _, agent := range [][]string{nil, {"--agent", "all"}} {
		budget := 3000
		if agent != nil {
			budget = 0
		}
		chat := exec.Command(bin, append(append(slices.Clone(common), "chat", "--base-url", model.URL, "--model", "m"), agent...)...)
		chat.Env, chat.Dir = env, dir
		chat.Stdin = strings.NewReader("hello\n")
		if out, err := chat.CombinedOutput(); err != nil {
			t.Fatalf("chat %v: %v\n%s", agent, err, out)
		}
		checkSystemCatalogue(t, fmt.Sprint("chat ", agent), lastSystem(), budget)

		acp := exec.Command(bin, append(append(slices.Clone(common), "acp", "--base-url", model.URL, "--model", "m"), agent...)...)
		acp.Env, acp.Dir = env, dir
		stdin, err := acp.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := acp.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := acp.Start(); err != nil {
			t.Fatal(err)
		}
		conn := sdk.NewClientSideConnection(acpGoClient{}, stdin, stdout)
		ctx := context.Background()
		if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
			t.Fatal(err)
		}
		s, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}}); err != nil {
			t.Fatal(err)
		}
		checkSystemCatalogue(t, fmt.Sprint("acp ", agent), lastSystem(), budget)
		stdin.Close()
		if err := acp.Wait(); err != nil {
			t.Errorf("agentpool acp %v: %v", agent, err)
		}
	}
}
