package testserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFaultserverServesItsSurface(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(Build(t))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"echo", "pid", "sleep", "count", "lookup", "state_set", "state_get", "crash", "add_tool", "stderr"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	for i, want := range []string{"1", "2"} {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != want {
			t.Fatalf("count #%d: %v %v", i+1, res, err)
		}
	}
	r, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static/hello"})
	if err != nil || r.Contents[0].Text != "hello" {
		t.Fatalf("resource: %v %v", r, err)
	}
	pr, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ada!" {
		t.Fatalf("prompt: %v %v", pr, err)
	}
}

func TestFaultserverExitAtStart(t *testing.T) {
	out, err := exec.Command(Build(t), "--exit-at-start", "2").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || len(out) == 0 {
		t.Fatalf("exit-at-start: %v, output %q", err, out)
	}
}

type skillsListResult struct {
	mcp.ResultBase
	Skills []struct {
		URI         string         `json:"uri"`
		Frontmatter map[string]any `json:"frontmatter"`
		Resources   []struct {
			URI    string `json:"uri"`
			Digest string `json:"digest"`
			Size   int    `json:"size"`
		} `json:"resources"`
	} `json:"skills"`
}

type skillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type skillsGetResult struct {
	mcp.ResultBase
	Skill struct {
		URI string `json:"uri"`
	} `json:"skill"`
}

// TestFaultserverSkills checks --skills: the extension is declared, skills/list lists both
// skills with a digest and size per file, every listed file is readable with that size,
// skills/get answers for a served SKILL.md and errors with -32602 for anything else, and
// --extra-tool adds its tool.
func TestFaultserverSkills(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	if err := mcp.AddSendingCustomMethod[*mcp.ListResourcesParams, *skillsListResult](c, "skills/list"); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*skillsGetParams, *skillsGetResult](c, "skills/get"); err != nil {
		t.Fatal(err)
	}
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(Build(t), "--skills", "--extra-tool", "extra")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.InitializeResult().Capabilities.Extensions["io.modelcontextprotocol/skills"]; !ok {
		t.Fatalf("extension not declared: %+v", s.InitializeResult().Capabilities)
	}
	list, err := mcp.CallCustomMethod[*mcp.ListResourcesParams, *skillsListResult](ctx, s, "skills/list", &mcp.ListResourcesParams{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, sk := range list.Skills {
		uris = append(uris, sk.URI)
		if len(sk.Resources) != 2 || sk.Resources[0].URI != sk.URI || !strings.HasSuffix(sk.URI, "/"+sk.Frontmatter["name"].(string)+"/SKILL.md") {
			t.Errorf("entry %s: %+v", sk.URI, sk)
		}
		for _, f := range sk.Resources {
			r, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: f.URI})
			if err != nil || len(r.Contents[0].Text) != f.Size || !strings.HasPrefix(f.Digest, "sha256:") {
				t.Errorf("read %s: %v, %v (listed size %d)", f.URI, r, err, f.Size)
			}
		}
	}
	if !slices.Equal(uris, []string{"skill://remote-review/SKILL.md", "skill://pdf/SKILL.md", "skill://acme/billing/refunds/SKILL.md"}) {
		t.Fatalf("skills/list = %v", uris)
	}
	res, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		if strings.Contains(r.URI, "refunds") {
			t.Errorf("refunds is listed in resources/list: %s", r.URI)
		}
	}
	got, err := mcp.CallCustomMethod[*skillsGetParams, *skillsGetResult](ctx, s, "skills/get", &skillsGetParams{URI: "skill://pdf/SKILL.md"})
	if err != nil || got.Skill.URI != "skill://pdf/SKILL.md" {
		t.Fatalf("skills/get pdf: %+v, %v", got, err)
	}
	var wire *jsonrpc.Error
	_, err = mcp.CallCustomMethod[*skillsGetParams, *skillsGetResult](ctx, s, "skills/get", &skillsGetParams{URI: "skill://pdf/../remote-review/SKILL.md"})
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("skills/get of an unserved URI: %v, want -32602", err)
	}
	tools, err := s.ListTools(ctx, nil)
	if err != nil || !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "extra" }) {
		t.Fatalf("--extra-tool: %v, %v", tools, err)
	}
}

// Build directories of test processes that have exited are removed; those of
// live processes, and unrelated names, are kept.
func TestSweepStaleBuildDirs(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(tmp, fmt.Sprintf("faultserver-%d-123", gone.Process.Pid))
	live := filepath.Join(tmp, fmt.Sprintf("faultserver-%d-456", os.Getpid()))
	other := filepath.Join(tmp, "faultserver-notapid")
	for _, d := range []string{dead, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sweepStale(tmp)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("directory of exited process %d kept (err %v)", gone.Process.Pid, err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}
