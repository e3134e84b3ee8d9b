package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/frontmatter"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SkillsExtension is the SEP-2640 extension identifier every session declares in its
// capabilities: it answers skills/list and skills/get.
const SkillsExtension = "io.modelcontextprotocol/skills"

// SEP-2640 method names.
const (
	methodSkillsList = "skills/list"
	methodSkillsGet  = "skills/get"
)

// SEP-2640 limits on one skill: beyond them an entry is "dynamic" rather than a listing no
// host is bound to accept.
const (
	maxSkillFiles = 512
	maxSkillBytes = 16 << 20
)

type skillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	mcp.ResultBase
	ResultType string       `json:"resultType"`
	Skills     []*skillInfo `json:"skills"`
}

type skillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type skillsGetResult struct {
	mcp.ResultBase
	ResultType string     `json:"resultType"`
	Skill      *skillInfo `json:"skill"`
}

// skillInfo is one SEP-2640 skill entry; Resources is a []skillFile or the string "dynamic".
type skillInfo struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   any            `json:"resources"`
}

type skillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// addSkillMethods registers skills/list and skills/get on the session's server.
func (s *session) addSkillMethods() error {
	if err := mcp.AddReceivingCustomMethod(s.server, methodSkillsList, s.skillsList); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s.server, methodSkillsGet, s.skillsGet)
}

func (s *session) skillsList(ctx context.Context, _ *mcp.ServerSession, p *skillsListParams) (*skillsListResult, error) {
	if p != nil && p.Cursor != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "skills/list: unknown cursor (the listing has one page)"}
	}
	v := s.view.Load()
	out := &skillsListResult{ResultType: "complete", Skills: make([]*skillInfo, 0, len(v.Skills))}
	for _, sk := range v.Skills {
		e, err := skillEntry(ctx, v, sk)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// A skill that cannot be read now (removed since the view) is left out: a
			// listing may be partial, an entry may not be wrong.
			s.g.log.Warn("skill left out of skills/list", "session", s.id, "skill", sk.URI, "err", err)
			continue
		}
		out.Skills = append(out.Skills, e)
	}
	return out, nil
}

func (s *session) skillsGet(ctx context.Context, _ *mcp.ServerSession, p *skillsGetParams) (*skillsGetResult, error) {
	v := s.view.Load()
	for _, sk := range v.Skills {
		if p != nil && sk.URI == p.URI {
			e, err := skillEntry(ctx, v, sk)
			if err != nil {
				return nil, rpcError(err)
			}
			return &skillsGetResult{ResultType: "complete", Skill: e}, nil
		}
	}
	uri := ""
	if p != nil {
		uri = p.URI
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("skills/get: %q is not the SKILL.md of a skill this server serves", uri)}
}

// skillEntry builds sk's entry: its frontmatter, read from its SKILL.md through the view,
// and its files (see skillFileList).
func skillEntry(ctx context.Context, v *view.View, sk view.Skill) (*skillInfo, error) {
	md, err := readBytes(ctx, v, sk.URI)
	if err != nil {
		return nil, err
	}
	e := &skillInfo{URI: sk.URI, Frontmatter: skillFrontmatter(sk, md)}
	files, err := skillFileList(ctx, v, sk, md)
	if err != nil || files == nil {
		e.Resources = "dynamic"
	} else {
		e.Resources = files
	}
	return e, nil
}

// skillFrontmatter is SKILL.md's frontmatter as written. A file whose frontmatter does not
// parse (the skill loader is lenient; SEP-2640 wants a frontmatter) gets name and description
// as the view has them.
func skillFrontmatter(sk view.Skill, md []byte) map[string]any {
	if b := frontmatter.Split(md); b.Closed {
		if fm, _ := frontmatter.Parse(sk.URI, b.YAML); fm != nil && fm.Values != nil {
			if _, err := json.Marshal(fm.Values); err == nil {
				return fm.Values
			}
		}
	}
	return map[string]any{"name": sk.Name, "description": sk.Description}
}

// skillFileList lists every file of a local skill (its folder walked, symlinks not followed),
// each read through the view for its digest and size: a file the view refuses to read
// (outside the skill, gone) is not one of its files. nil (an entry "dynamic") for a skill
// the gateway cannot enumerate — a remote one: agentpool keeps no upstream's file list —
// or one beyond SEP-2640's limits.
func skillFileList(ctx context.Context, v *view.View, sk view.Skill, md []byte) ([]skillFile, error) {
	root, ok := strings.CutSuffix(sk.URI, "SKILL.md")
	if !ok || sk.Source.Remote() || !filepath.IsAbs(sk.Origin) {
		return nil, nil
	}
	var rels []string
	over := false // more than maxSkillFiles
	err := filepath.WalkDir(sk.Origin, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !(d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
			return nil
		}
		if len(rels) == maxSkillFiles {
			over = true
			return fs.SkipAll
		}
		rel, err := filepath.Rel(sk.Origin, p)
		if err != nil {
			return err
		}
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	if err != nil || over {
		return nil, err
	}
	files := make([]skillFile, 0, len(rels))
	var total int64
	for _, rel := range rels {
		uri := root + rel
		var b []byte
		if rel == "SKILL.md" {
			b = md
		} else if b, err = readBytes(ctx, v, uri); err != nil {
			if errors.Is(err, ext.ErrNotFound) || errors.Is(err, ext.ErrPathTraversal) || errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, err
		}
		sum := sha256.Sum256(b)
		files = append(files, skillFile{URI: uri, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(b))})
		if total += int64(len(b)); total > maxSkillBytes {
			return nil, nil
		}
	}
	return files, nil
}

// readBytes reads uri through the view: a single content, its text or blob.
func readBytes(ctx context.Context, v *view.View, uri string) ([]byte, error) {
	cs, err := v.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	if len(cs) != 1 {
		return nil, fmt.Errorf("read %s: %d contents, want 1", uri, len(cs))
	}
	if cs[0].Blob != nil {
		return cs[0].Blob, nil
	}
	return []byte(cs[0].Text), nil
}
