package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/frontmatter"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite testdata/testbed.json from the live test bed")

const bedFile = "testdata/testbed.json"

// bed is testdata/testbed.json: what the test bed's servers list, and the skills of
// ../shared/corpus.
type bed struct {
	Servers []bedServer `json:"servers"`
	Skills  []bedSkill  `json:"skills"`
}

type bedServer struct {
	Name         string    `json:"name"`
	Instructions string    `json:"instructions,omitempty"`
	Tools        []bedTool `json:"tools"`
}

type bedTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type bedSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// corpusDir is the shared corpus of real skill collections, beside the worktree.
const corpusDir = "../../shared/corpus"

// TestTestBed lists the tools of every server of the test bed over real stdio, and reads the
// skills of the corpus, and checks them against testdata/testbed.json, the fixture the recall
// measures use (-update rewrites it).
func TestTestBed(t *testing.T) {
	servers := testserver.TestBed(t)
	live := bed{Servers: make([]bedServer, len(servers))}
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { live.Servers[i] = listServer(t, s) })
	}
	wg.Wait()
	live.Skills = corpusSkills(t)
	got, err := json.MarshalIndent(live, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(bedFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(bedFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestTestBed -update ./toolsearch)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	fixture := loadBed(t)
	for i, s := range live.Servers {
		if i >= len(fixture.Servers) || fixture.Servers[i].Name != s.Name {
			t.Errorf("server %s: not at its place in %s", s.Name, bedFile)
			continue
		}
		f := fixture.Servers[i]
		if s.Instructions != f.Instructions {
			t.Errorf("server %s: instructions differ from %s", s.Name, bedFile)
		}
		if !slices.EqualFunc(s.Tools, f.Tools, toolEqual) {
			t.Errorf("server %s lists %v, %s has %v (or a description or schema differs)", s.Name, toolNames(s.Tools), bedFile, toolNames(f.Tools))
		}
	}
	if !slices.Equal(live.Skills, fixture.Skills) {
		t.Errorf("the skills of %s differ from %s", corpusDir, bedFile)
	}
	t.Errorf("the live test bed differs from %s (rewrite it with -update when a pinned server was upgraded)", bedFile)
}

func toolEqual(a, b bedTool) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema)
}

func toolNames(ts []bedTool) []string {
	var out []string
	for _, x := range ts {
		out = append(out, x.Name)
	}
	return out
}

// listServer starts s over stdio, initializes, lists its tools and closes it.
func listServer(t *testing.T, s testserver.BedServer) bedServer {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolsearch-testbed", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: s.Cmd()}, nil)
	if err != nil {
		t.Errorf("server %s: connect: %v", s.Name, err)
		return bedServer{Name: s.Name}
	}
	defer cs.Close()
	out := bedServer{Name: s.Name, Instructions: cs.InitializeResult().Instructions}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Errorf("server %s: tools/list: %v", s.Name, err)
			break
		}
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Errorf("server %s: tool %s: schema: %v", s.Name, tool.Name, err)
		}
		out.Tools = append(out.Tools, bedTool{Name: tool.Name, Title: tool.Title, Description: tool.Description, InputSchema: schema})
	}
	slices.SortFunc(out.Tools, func(a, b bedTool) int { return strings.Compare(a.Name, b.Name) })
	if len(out.Tools) == 0 {
		t.Errorf("server %s listed no tools", s.Name)
	}
	return out
}

// corpusSkills reads the name and description of every SKILL.md under the corpus, by name.
func corpusSkills(t *testing.T) []bedSkill {
	var out []bedSkill
	files, err := filepath.Glob(filepath.Join(corpusDir, "*", "*", "SKILL.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no skills under %s (%v): the corpus is /work/shared/corpus, beside the worktree", corpusDir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fm, diags := frontmatter.Parse(f, frontmatter.Split(data).YAML)
		if fm == nil {
			t.Fatalf("%s: %v", f, diags)
		}
		name, _ := fm.Values["name"].(string)
		desc, _ := fm.Values["description"].(string)
		out = append(out, bedSkill{Name: name, Description: desc})
	}
	slices.SortFunc(out, func(a, b bedSkill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func loadBed(t testing.TB) bed {
	t.Helper()
	data, err := os.ReadFile(bedFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestTestBed -update ./toolsearch)", err)
	}
	var b bed
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatalf("%s: %v", bedFile, err)
	}
	return b
}

// bedDocs returns the docs of the test bed, per server (skills under ""), as a view serves
// them: a tool's key is its served name.
func bedDocs(b bed) map[string][]Doc {
	out := map[string][]Doc{}
	for _, s := range b.Servers {
		for _, tool := range s.Tools {
			out[s.Name] = append(out[s.Name], Doc{
				Key: view.ServedName(s.Name + "__" + tool.Name), Kind: KindTool, Server: s.Name,
				Name: tool.Name, Title: tool.Title, Description: tool.Description,
				Params: ParamsOf(tool.InputSchema), ServerInstructions: s.Instructions,
			})
		}
	}
	for _, sk := range b.Skills {
		out[""] = append(out[""], Doc{Key: sk.Name, Kind: KindSkill, Name: sk.Name, Description: sk.Description})
	}
	return out
}

// bedIndex is the index of the test bed.
func bedIndex(t testing.TB) *Index {
	ix := New()
	for server, docs := range bedDocs(loadBed(t)) {
		ix = ix.With(server, docs)
	}
	return ix
}

// label is how the labelled requests name a doc: "server/tool", or "skill/name".
func label(d *Doc) string {
	if d.Kind == KindSkill {
		return "skill/" + d.Name
	}
	return fmt.Sprintf("%s/%s", d.Server, d.Name)
}
