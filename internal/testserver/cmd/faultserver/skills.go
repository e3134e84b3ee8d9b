package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// skillsExtension is the SEP-2640 extension identifier (declared with --skills).
const skillsExtension = "io.modelcontextprotocol/skills"

// The SEP-2640 wire types, defined here rather than imported from mcpcap so the fixture does
// not depend on the code it tests.
type skillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	mcp.ResultBase
	Skills     []*skillEntry `json:"skills"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

type skillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type skillsGetResult struct {
	mcp.ResultBase
	Skill *skillEntry `json:"skill"`
}

type skillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []skillFile    `json:"resources"`
}

type skillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// fixtureSkill is one skill served with --skills: its SKILL.md and supporting files.
type fixtureSkill struct {
	name, description string
	prefix            string // organisational prefix of the skill path ("" or "a/b/")
	// unlisted skills are left out of resources/list (served through a resource template):
	// only skills/list and skills/get reveal them.
	unlisted bool
	files    map[string]string // path in the skill → content; SKILL.md included
	order    []string          // file paths, SKILL.md first
}

// fixtureSkills are the skills --skills serves. "pdf" deliberately has the name of a skill
// tests also install locally: a remote skill must never shadow a local one. "refunds" sits at
// a nested skill path and is absent from resources/list, so a client finds it only through
// skills/list.
var fixtureSkills = []fixtureSkill{
	{
		name: "remote-review", description: "Review a change the way the remote team does.",
		order: []string{"SKILL.md", "references/CHECKLIST.md"},
		files: map[string]string{
			"SKILL.md": "---\nname: remote-review\ndescription: Review a change the way the remote team does.\n---\n" +
				"# Remote review\n\nWork through references/CHECKLIST.md before approving.\n",
			"references/CHECKLIST.md": "# Checklist\n\n- tests added\n- docs updated\n",
		},
	},
	{
		name: "pdf", description: "Remote pdf skill served by faultserver.",
		order: []string{"SKILL.md", "references/FORMS.md"},
		files: map[string]string{
			"SKILL.md": "---\nname: pdf\ndescription: Remote pdf skill served by faultserver.\n---\n" +
				"# Remote pdf\n\nThis is the REMOTE pdf skill.\n",
			"references/FORMS.md": "# Remote forms\n\nFill the remote forms.\n",
		},
	},
	{
		name: "refunds", description: "Process refunds per policy.", prefix: "acme/billing/", unlisted: true,
		order: []string{"SKILL.md", "examples/email.md"},
		files: map[string]string{
			"SKILL.md":          "---\nname: refunds\ndescription: Process refunds per policy.\n---\n# Refunds\n",
			"examples/email.md": "Dear customer, your refund is on its way.\n",
		},
	},
}

func (s fixtureSkill) uri(file string) string { return "skill://" + s.prefix + s.name + "/" + file }

func (s fixtureSkill) entry() *skillEntry {
	e := &skillEntry{URI: s.uri("SKILL.md"), Frontmatter: map[string]any{"name": s.name, "description": s.description}}
	for _, f := range s.order {
		sum := sha256.Sum256([]byte(s.files[f]))
		e.Resources = append(e.Resources, skillFile{URI: s.uri(f), Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: len(s.files[f])})
	}
	return e
}

// addSkills serves fixtureSkills: every file as a skill:// resource (SKILL.md with the name,
// description and MIME type SEP-2640 asks for) plus the skills/list and skills/get methods.
// $FAULT_SKILL_NOTE, when set, is appended to remote-review's SKILL.md.
// The caller declares the extension in the server's capabilities.
func addSkills(s *mcp.Server) error {
	if note := os.Getenv("FAULT_SKILL_NOTE"); note != "" {
		fixtureSkills[0].files["SKILL.md"] += "\n" + note + "\n"
	}
	unlisted := map[string]string{} // URI → content of files served by the template only
	for _, sk := range fixtureSkills {
		for _, f := range sk.order {
			content := sk.files[f]
			if sk.unlisted {
				unlisted[sk.uri(f)] = content
				continue
			}
			r := &mcp.Resource{URI: sk.uri(f), Name: sk.name + "/" + f, MIMEType: "text/markdown"}
			if f == "SKILL.md" {
				r.Name, r.Description = sk.name, sk.description
			}
			s.AddResource(r, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: content}}}, nil
			})
		}
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "skill://acme/{+path}", Name: "acme-skills", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			content, ok := unlisted[req.Params.URI]
			if !ok {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: content}}}, nil
		})
	err := mcp.AddReceivingCustomMethod(s, "skills/list", func(context.Context, *mcp.ServerSession, *skillsListParams) (*skillsListResult, error) {
		res := &skillsListResult{Skills: []*skillEntry{}}
		for _, sk := range fixtureSkills {
			res.Skills = append(res.Skills, sk.entry())
		}
		return res, nil
	})
	if err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s, "skills/get", func(_ context.Context, _ *mcp.ServerSession, p *skillsGetParams) (*skillsGetResult, error) {
		for _, sk := range fixtureSkills {
			if p != nil && p.URI == sk.uri("SKILL.md") {
				return &skillsGetResult{Skill: sk.entry()}, nil
			}
		}
		uri := ""
		if p != nil {
			uri = p.URI
		}
		data, _ := json.Marshal(map[string]string{"uri": uri})
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no skill %s", strings.TrimSpace(uri)), Data: data}
	})
}
