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
	"slices"
	"strings"
	"sync"

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

// maxSkillListings bounds the skills/list and skills/get answers computed at once, in the
// whole process: each may walk and read every file of every skill, and a burst of clients
// must not turn into a burst of disk reads. The others wait their turn (or their context).
const maxSkillListings = 4

var skillListings = make(chan struct{}, maxSkillListings)

// acquireListing takes a turn to compute a listing; release gives it back.
func acquireListing(ctx context.Context) (release func(), err error) {
	select {
	case skillListings <- struct{}{}:
		return func() { <-skillListings }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// testHookDigestRead, when set by a test, runs each time a skill file is read for its digest.
var testHookDigestRead func(uri string)

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
	release, err := acquireListing(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
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
	release, err := acquireListing(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
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
// (outside the skill, gone) is not one of its files. A file read before and unchanged since
// (digestCache) is not read again. A file whose URI lies under another listed skill's path
// (skill://a/configure/... of a bare skill a, when plugin a has configure) is that skill's,
// not this one's. nil (an entry "dynamic") for a skill
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
	// A skill of the same capability whose path extends this one's (a namespaced skill
	// skill://a/configure/ under a bare skill://a/, package skill) owns the URIs below its
	// root: a file of this skill there reads as the other skill's, so it is not one of this
	// skill's files. (Across capabilities the registry routes to the outer skill's source.)
	var inner []string
	for _, o := range v.Skills {
		if r, ok := strings.CutSuffix(o.URI, "SKILL.md"); ok && o.Capability == sk.Capability && r != root && strings.HasPrefix(r, root) {
			inner = append(inner, r)
		}
	}
	files := make([]skillFile, 0, len(rels))
	var total int64
	for _, rel := range rels {
		uri := root + rel
		if slices.ContainsFunc(inner, func(r string) bool { return strings.HasPrefix(uri, r) }) {
			continue
		}
		var f skillFile
		if rel == "SKILL.md" {
			f = fileDigest(uri, md)
		} else {
			path := filepath.Join(sk.Origin, filepath.FromSlash(rel))
			fi, statErr := os.Stat(path) // before the read: an edit in between is seen next time
			var ok bool
			if f, ok = digests.get(uri, path, fi); !ok {
				if testHookDigestRead != nil {
					testHookDigestRead(uri)
				}
				b, err := readBytes(ctx, v, uri)
				if err != nil {
					if errors.Is(err, ext.ErrNotFound) || errors.Is(err, ext.ErrPathTraversal) || errors.Is(err, os.ErrNotExist) {
						continue
					}
					return nil, err
				}
				f = fileDigest(uri, b)
				if statErr == nil {
					digests.put(uri, path, fi, f)
				}
			}
		}
		files = append(files, f)
		if total += f.Size; total > maxSkillBytes {
			return nil, nil
		}
	}
	return files, nil
}

// fileDigest is the entry of file uri holding b.
func fileDigest(uri string, b []byte) skillFile {
	sum := sha256.Sum256(b)
	return skillFile{URI: uri, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(b))}
}

// digestCache keeps the entries of the skill files read for skills/list and skills/get, by
// URI and path, with the file's stat at the read: an entry serves while the file (symlinks
// followed, as the read follows them) is the same file (os.SameFile: device and inode) with the
// same size and modification time — the quick check of make and rsync. A file rewritten in
// place with the same size within the file system's clock granularity would keep its old
// digest; skills are edited by people, not at that rate. It is process-wide (a file's digest
// is not a session's or a gateway's), and bounded: past maxDigests entries an arbitrary one
// makes room.
type digestCache struct {
	mu sync.Mutex
	m  map[digestKey]digestEntry
}

type digestKey struct{ uri, path string }

type digestEntry struct {
	fi   os.FileInfo
	file skillFile
}

const maxDigests = 1 << 14

var digests = &digestCache{m: map[digestKey]digestEntry{}}

func (c *digestCache) get(uri, path string, fi os.FileInfo) (skillFile, bool) {
	if fi == nil {
		return skillFile{}, false
	}
	c.mu.Lock()
	e, ok := c.m[digestKey{uri, path}]
	c.mu.Unlock()
	if !ok || !os.SameFile(e.fi, fi) || e.fi.Size() != fi.Size() || !e.fi.ModTime().Equal(fi.ModTime()) {
		return skillFile{}, false
	}
	return e.file, true
}

func (c *digestCache) put(uri, path string, fi os.FileInfo, f skillFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxDigests {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[digestKey{uri, path}] = digestEntry{fi: fi, file: f}
}

// maxCompletions is MCP's bound on the values of one completion.
const maxCompletions = 100

// completeSkillPath completes the skill-files template from the local skill sources the
// session sees (skill resources that complete; an upstream's skills have no file list here),
// in registration order, merged without repeats, at most maxCompletions values.
func (s *session) completeSkillPath(ctx context.Context, req *ext.CompleteRequest) (*mcp.CompleteResult, error) {
	out := mcp.CompletionResultDetails{Values: []string{}}
	seen := map[string]bool{}
	for _, r := range s.g.reg.Registrations(s.scope) {
		_, skills := r.Capability.(ext.SkillResource)
		c, ok := r.Capability.(ext.Completer)
		if !skills || !ok || r.Origin.Remote() {
			continue
		}
		res, err := c.Complete(ctx, req)
		if err != nil {
			return nil, rpcError(err)
		}
		out.HasMore = out.HasMore || res.HasMore
		for _, v := range res.Values {
			if seen[v] {
				continue
			}
			if len(out.Values) == maxCompletions {
				out.HasMore = true
				break
			}
			seen[v] = true
			out.Values = append(out.Values, v)
		}
	}
	return &mcp.CompleteResult{Completion: out}, nil
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
