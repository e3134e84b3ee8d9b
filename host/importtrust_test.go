package host

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/trust"
)

// A project cannot smuggle a server in through import: a server of the JSON file its
// agentpool.yaml imports is one of the project's declarations, named by that file; nothing
// starts until the project is trusted, and a change to the JSON file asks again.
func TestProjectImportNeedsTrust(t *testing.T) {
	bin := testserver.Build(t)
	project, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "MARKER")
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	cfgPath := filepath.Join(project, "agentpool.yaml")
	jsonPath := filepath.Join(project, ".mcp.json")
	writeFile(t, cfgPath, "import: [.mcp.json]\n")
	writeMCP := func(cmd string) {
		t.Helper()
		writeFile(t, jsonPath, `{"mcpServers": {"smuggled": {"command": "sh", "args": ["-c", "touch `+marker+`; exec `+cmd+`"]}}}`)
	}
	build := func() *Host {
		t.Helper()
		pc, err := config.Load(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		return buildHost(t, "", "sandbox: off\n", Options{ProjectDir: project, HomeDir: home, Trust: store, ProjectConfig: pc})
	}
	writeMCP(bin)

	h := build()
	if h.Current().Project.Trusted() {
		t.Fatal("a project with an imported server is trusted without asking")
	}
	i := slices.IndexFunc(h.Current().Project.Decls, func(d trust.Decl) bool { return d.Name == "smuggled" })
	if i < 0 {
		t.Fatalf("the imported server is not among the project's declarations: %+v", h.Current().Project.Decls)
	}
	if d := h.Current().Project.Decls[i]; d.Where != jsonPath || d.Command != "sh" {
		t.Errorf("declaration %+v, want it named by %s", d, jsonPath)
	}
	if _, tools := listAll(t, h, "s1"); slices.Contains(tools, "smuggled__echo") || exists(marker) {
		t.Fatalf("untrusted: tools %v, marker %v; want nothing started", tools, exists(marker))
	}

	if err := store.Trust(h.Current().Project.Dir, trust.Digests(h.Current().Project.Decls), time.Now()); err != nil {
		t.Fatal(err)
	}
	h = build()
	if _, tools := listAll(t, h, "s2"); !slices.Contains(tools, "smuggled__echo") || !exists(marker) {
		t.Fatalf("trusted: tools %v, marker %v; want the imported server started", tools, exists(marker))
	}
	os.Remove(marker)

	writeMCP(bin + " ") // the JSON file changed, the YAML did not
	h = build()
	if v := h.Current().Project.Verdict; v.Status != trust.Changed || len(v.New) != 1 || v.New[0].Name != "smuggled" {
		t.Fatalf("changed JSON: verdict %+v, want Changed naming smuggled", v)
	}
	if _, tools := listAll(t, h, "s3"); slices.Contains(tools, "smuggled__echo") || exists(marker) {
		t.Fatalf("changed JSON: tools %v, marker %v; want nothing started", tools, exists(marker))
	}
}

// An untrusted project's config is read by LoadProjectConfig without its imports, which the
// project lists as Unread; with a record, or trusted for the run, it is read whole. A config
// read without its imports is refused where the project is to be read whole.
func TestLoadProjectConfigImportsByTrust(t *testing.T) {
	project := t.TempDir()
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	cfgPath := filepath.Join(project, "agentpool.yaml")
	writeFile(t, cfgPath, "import: [.mcp.json]\nmcp_servers:\n  own: {command: own}\n")
	writeFile(t, filepath.Join(project, ".mcp.json"), `{"mcpServers": {"imported": {"command": "imp"}}}`)
	servers := func(trusted bool) []string {
		t.Helper()
		pc, err := LoadProjectConfig(cfgPath, project, store, trusted)
		if err != nil {
			t.Fatal(err)
		}
		return pc.MCPServers.Names()
	}
	if got := servers(false); !slices.Equal(got, []string{"own"}) {
		t.Errorf("untrusted: servers %v, want the config's own only", got)
	}
	if got := servers(true); !slices.Equal(got, []string{"imported", "own"}) {
		t.Errorf("trusted for the run: servers %v", got)
	}
	own, err := LoadProjectConfig(cfgPath, project, store, false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := InspectProject(ProjectOptions{Dir: project, Config: own, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	p.Close(t.Context())
	if want := []string{filepath.Join(project, ".mcp.json")}; !slices.Equal(p.Unread, want) || p.Trusted() {
		t.Errorf("untrusted: unread %q, trusted %v; want %q", p.Unread, p.Trusted(), want)
	}
	for _, o := range []ProjectOptions{{Trust: true}, {ScanAll: true}} {
		o.Dir, o.Config, o.Store = project, own, store
		if p, err := InspectProject(o); err == nil {
			p.Close(t.Context())
			t.Errorf("%+v: a config read without its imports is used whole", o)
		}
	}
	if err := store.Trust(p.Dir, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := servers(false); !slices.Equal(got, []string{"imported", "own"}) {
		t.Errorf("with a record: servers %v", got)
	}
}
