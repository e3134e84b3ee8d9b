package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SEP-2640 shapes, written here from the SEP rather than taken from the package under test.
type sepListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type sepListResult struct {
	mcp.ResultBase
	ResultType string      `json:"resultType"`
	Skills     []*sepSkill `json:"skills"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

type sepGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type sepGetResult struct {
	mcp.ResultBase
	ResultType string    `json:"resultType"`
	Skill      *sepSkill `json:"skill"`
}

type sepSkill struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

type sepFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// sepClient is a go-sdk client that can send skills/list and skills/get.
func sepClient(t *testing.T) *mcp.Client {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "sep-test", Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*sepListParams, *sepListResult](c, "skills/list"); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*sepGetParams, *sepGetResult](c, "skills/get"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSkillsExtension: a session declares io.modelcontextprotocol/skills and answers
// skills/list and skills/get as SEP-2640 shapes them: the frontmatter verbatim (every key,
// nested ones included), every file of the skill with the sha256 digest and size of what
// resources/read returns for it, the same entry from skills/get, and -32602 for a URI that
// is not one of its skills' SKILL.md.
func TestSkillsExtension(t *testing.T) {
	f := newFixture(t, nil)
	// A skill with more frontmatter than name and description, and a nested file.
	dir := filepath.Join(t.TempDir(), "pdf")
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"SKILL.md":             "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1\"\n---\nUse the templates.\n",
		"templates/invoice.md": "An invoice.\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(dir, filepath.Join(f.skills, "pdf")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs, err := sepClient(t).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, ok := cs.InitializeResult().Capabilities.Extensions["io.modelcontextprotocol/skills"]; !ok {
		t.Fatalf("capabilities do not declare the skills extension: %+v", cs.InitializeResult().Capabilities)
	}

	var list *sepListResult
	testwait.For(t, "skills/list to hold pdf and greet", func() bool {
		list, err = mcp.CallCustomMethod[*sepListParams, *sepListResult](ctx, cs, "skills/list", &sepListParams{})
		if err != nil {
			t.Fatalf("skills/list: %v", err)
		}
		return len(list.Skills) == 2
	})
	if list.ResultType != "complete" {
		t.Errorf("resultType = %q, want complete", list.ResultType)
	}
	byURI := map[string]*sepSkill{}
	for _, s := range list.Skills {
		byURI[s.URI] = s
	}
	pdf, greet := byURI["skill://pdf/SKILL.md"], byURI["skill://greet/SKILL.md"]
	if pdf == nil || greet == nil {
		t.Fatalf("skills/list = %+v", list.Skills)
	}
	wantFM := map[string]any{"name": "pdf", "description": "Fill PDF forms.", "license": "Apache-2.0",
		"metadata": map[string]any{"version": "2.1"}}
	if !reflect.DeepEqual(pdf.Frontmatter, wantFM) {
		t.Errorf("pdf frontmatter = %#v, want %#v", pdf.Frontmatter, wantFM)
	}
	checkFiles := func(s *sepSkill, want map[string]string) {
		t.Helper()
		var got []sepFile
		if err := json.Unmarshal(s.Resources, &got); err != nil {
			t.Fatalf("%s: resources %s: %v", s.URI, s.Resources, err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: resources %+v, want %d files", s.URI, got, len(want))
		}
		for _, f := range got {
			body, ok := want[f.URI]
			if !ok {
				t.Errorf("%s: unexpected file %s", s.URI, f.URI)
				continue
			}
			sum := sha256.Sum256([]byte(body))
			if d := "sha256:" + hex.EncodeToString(sum[:]); f.Digest != d || f.Size != int64(len(body)) {
				t.Errorf("%s: %s digest %s size %d, want %s %d", s.URI, f.URI, f.Digest, f.Size, d, len(body))
			}
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: f.URI})
			if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != body {
				t.Errorf("resources/read %s = %+v, %v; want the listed bytes", f.URI, rr, err)
			}
		}
	}
	checkFiles(pdf, map[string]string{"skill://pdf/SKILL.md": files["SKILL.md"], "skill://pdf/templates/invoice.md": files["templates/invoice.md"]})
	checkFiles(greet, map[string]string{
		"skill://greet/SKILL.md": "---\nname: greet\ndescription: The greet skill for tests.\n---\nSay hello to $ARGUMENTS.\n",
		"skill://greet/notes.md": "notes of greet\n"})

	got, err := mcp.CallCustomMethod[*sepGetParams, *sepGetResult](ctx, cs, "skills/get", &sepGetParams{URI: "skill://pdf/SKILL.md"})
	if err != nil {
		t.Fatalf("skills/get: %v", err)
	}
	if got.ResultType != "complete" || got.Skill == nil || got.Skill.URI != pdf.URI ||
		!reflect.DeepEqual(got.Skill.Frontmatter, pdf.Frontmatter) || string(got.Skill.Resources) != string(pdf.Resources) {
		t.Errorf("skills/get = %+v, want the listing's entry %+v", got, pdf)
	}
	for _, uri := range []string{"skill://nope/SKILL.md", "skill://pdf/templates/invoice.md", "skill://pdf", "test://static/hello", ""} {
		_, err := mcp.CallCustomMethod[*sepGetParams, *sepGetResult](ctx, cs, "skills/get", &sepGetParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("skills/get %q: %v, want -32602", uri, err)
		}
	}
	// The session is still usable.
	if got := call(t, cs, "fault__echo", map[string]any{"text": "after"}); got != "after" {
		t.Errorf("echo = %q", got)
	}
}
