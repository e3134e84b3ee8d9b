package mcpcap

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SkillsExtension is the SEP-2640 extension identifier a server declares in its capabilities
// to serve skills/list and skills/get.
const SkillsExtension = "io.modelcontextprotocol/skills"

// SEP-2640 method names.
const (
	MethodSkillsList = "skills/list"
	MethodSkillsGet  = "skills/get"
)

// SkillsListParams are the params of skills/list.
type SkillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// SkillsListResult is the result of skills/list.
type SkillsListResult struct {
	mcp.ResultBase
	Skills     []*SkillInfo `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// SkillsGetParams are the params of skills/get.
type SkillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

// SkillsGetResult is the result of skills/get.
type SkillsGetResult struct {
	mcp.ResultBase
	Skill *SkillInfo `json:"skill"`
}

// SkillInfo is one SEP-2640 skill entry. Resources is either an array of SkillFile or the
// string "dynamic"; use Files to decode it.
type SkillInfo struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

// SkillFile is one file of a skill entry's resources.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Files decodes Resources: the listed files, or dynamic=true for "dynamic". Any other value
// (including a missing one) is an error: SEP-2640 says such an entry must not be loaded.
func (s *SkillInfo) Files() (files []SkillFile, dynamic bool, err error) {
	var str string
	if json.Unmarshal(s.Resources, &str) == nil {
		if str == "dynamic" {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("skill %s: resources %q: want an array or \"dynamic\"", s.URI, str)
	}
	if err := json.Unmarshal(s.Resources, &files); err != nil || files == nil {
		return nil, false, fmt.Errorf("skill %s: resources: want an array or \"dynamic\"", s.URI)
	}
	return files, false, nil
}

// RegisterSkillMethods registers skills/list and skills/get as sending methods on c, so a Cap
// using a session of c can call them. A pool or an injector that builds its own mcp.Client
// calls it once per client; without it the Cap finds skills through resources/list only.
func RegisterSkillMethods(c *mcp.Client) error {
	if err := mcp.AddSendingCustomMethod[*SkillsListParams, *SkillsListResult](c, MethodSkillsList); err != nil {
		return err
	}
	return mcp.AddSendingCustomMethod[*SkillsGetParams, *SkillsGetResult](c, MethodSkillsGet)
}

// skillCache is what the server lists as skills: entries and the exact file URIs it serves.
type skillCache struct {
	entries []ext.SkillEntry
	files   map[string]bool
	roots   []string // skill roots ("skill://x/") of dynamic skills: any file under them
}

// ListSkills returns the server's skills: skill://…/SKILL.md resources of resources/list and,
// when the server declares the SEP-2640 extension, the entries of skills/list. Every entry has
// Origin "mcp://<server>": its content is untrusted. The registry asks local skill sources
// first, so these never shadow a local skill.
func (c *Cap) ListSkills(ctx context.Context) ([]ext.SkillEntry, error) {
	if c.dormant() {
		return nil, nil
	}
	sc, err := c.skills(ctx)
	if err != nil {
		return nil, err
	}
	return sc.entries, nil
}

// SkillExists reports whether the server lists uri as a skill file. It answers only for URIs
// the server lists (skills/list files, skill:// resources), never for a guess. A dormant Lazy
// Cap lists nothing: only a URI naming it (mcp://<server>/…) connects it.
func (c *Cap) SkillExists(ctx context.Context, uri string) (bool, error) {
	if c.isClosed() {
		return false, c.errClosed()
	}
	named := strings.HasPrefix(uri, "mcp://")
	uri, ok := c.unwrapURI(uri)
	if !ok || checkSkillURI(uri) != nil || (!named && c.dormant()) {
		return false, nil
	}
	sc, err := c.skills(ctx)
	if err != nil {
		return false, err
	}
	return sc.has(uri) && c.blockedSkill(uri) == nil, nil
}

// ReadSkill reads a skill file the server lists. An unlisted URI, or a file of a skill the
// Cap's SkillGuard keeps out (whatever other skill's root holds it), is ext.ErrNotFound; a URI
// with "..", an encoded dot segment, a backslash or a NUL is ext.ErrPathTraversal.
func (c *Cap) ReadSkill(ctx context.Context, uri string) ([]ext.ResourceContents, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	orig, ok := c.unwrapURI(uri)
	if !ok {
		return nil, fmt.Errorf("mcp server %q: read skill %s: %w", c.cfg.Name, uri, ext.ErrNotFound)
	}
	if err := checkSkillURI(orig); err != nil {
		return nil, fmt.Errorf("mcp server %q: read skill %s: %w", c.cfg.Name, uri, err)
	}
	sc, err := c.skills(ctx)
	if err != nil {
		return nil, err
	}
	if !sc.has(orig) {
		return nil, fmt.Errorf("mcp server %q: read skill %s: %w", c.cfg.Name, uri, ext.ErrNotFound)
	}
	if err := c.blockedSkill(orig); err != nil {
		return nil, fmt.Errorf("mcp server %q: read skill %s: %w: %w", c.cfg.Name, uri, ext.ErrNotFound, err)
	}
	return c.read(ctx, orig)
}

func (sc *skillCache) has(uri string) bool {
	if sc.files[uri] {
		return true
	}
	for _, r := range sc.roots {
		if strings.HasPrefix(uri, r) {
			return true
		}
	}
	return false
}

// checkSkillURI rejects URIs whose path could leave a skill's root in any encoding.
func checkSkillURI(uri string) error {
	bad := func(why string) error { return fmt.Errorf("%s in %q: %w", why, uri, ext.ErrPathTraversal) }
	if strings.ContainsAny(uri, "\\\x00") {
		return bad("backslash or NUL")
	}
	dec := uri
	for i := 0; i < 3; i++ { // undo nested percent-encoding (%252e → %2e → .)
		d, err := url.PathUnescape(dec)
		if err != nil {
			return bad("malformed percent-encoding")
		}
		if d == dec {
			break
		}
		dec = d
	}
	if strings.ContainsAny(dec, "\\\x00") {
		return bad("encoded backslash or NUL")
	}
	_, rest, ok := strings.Cut(dec, "://")
	if !ok {
		rest = dec
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == ".." || seg == "." {
			return bad("dot segment")
		}
	}
	return nil
}

func (c *Cap) skills(ctx context.Context) (*skillCache, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	// Skills are derived from the resource listing, read inside fetch: a resources list_changed
	// drops both, so a skill listing built from a stale resource listing is not cached.
	return cachedListing(c, cn, &c.skillList, func() (*skillCache, error) {
		rc, err := c.resources(ctx)
		if err != nil {
			return nil, err
		}
		sc := &skillCache{files: map[string]bool{}}
		origin := "mcp://" + c.cfg.Name
		seen := map[string]bool{}
		add := func(e ext.SkillEntry) {
			if !seen[e.URI] {
				seen[e.URI] = true
				sc.entries = append(sc.entries, e)
			}
		}
		for _, r := range rc.entries {
			if !strings.HasPrefix(r.URI, "skill://") || checkSkillURI(r.URI) != nil {
				continue
			}
			sc.files[r.URI] = true
			if path.Base(r.URI) == "SKILL.md" {
				name := r.Name
				if name == "" || name == r.URI {
					name = path.Base(path.Dir(strings.TrimPrefix(r.URI, "skill://")))
				}
				add(ext.SkillEntry{URI: r.URI, Name: name, Description: r.Description, MIMEType: r.MIMEType, Origin: origin})
			}
		}
		if declaresSkills(cn) {
			if err := c.listSEPSkills(ctx, cn, sc, add, origin); err != nil {
				c.log.Warn("skills/list failed; using skill:// resources only", "err", err)
			}
		}
		c.guardSkills(ctx, sc)
		return sc, nil
	})
}

func declaresSkills(cn *conn) bool {
	caps := serverCaps(cn)
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[SkillsExtension]
	return ok
}

func (c *Cap) listSEPSkills(ctx context.Context, cn *conn, sc *skillCache, add func(ext.SkillEntry), origin string) error {
	params := &SkillsListParams{}
	for page := 0; page < 1000; page++ {
		res, err := mcp.CallCustomMethod[*SkillsListParams, *SkillsListResult](ctx, cn.session, MethodSkillsList, params)
		if err != nil {
			return fmt.Errorf("mcp server %q: %s: %w", c.cfg.Name, MethodSkillsList, err)
		}
		for _, s := range res.Skills {
			if s == nil || checkSkillURI(s.URI) != nil {
				continue
			}
			// A skill is <skill-path>/SKILL.md (SEP-2640); anything else would make its root a bare
			// prefix that claims other skills' URIs.
			if dir, ok := strings.CutSuffix(s.URI, "/SKILL.md"); !ok || !strings.Contains(dir, "://") || strings.HasSuffix(dir, "://") {
				c.log.Warn("skipping skill entry whose URI is not <skill-path>/SKILL.md", "uri", s.URI)
				continue
			}
			files, dynamic, err := s.Files()
			if err != nil {
				c.log.Warn("skipping invalid skill entry", "err", err)
				continue
			}
			name, _ := s.Frontmatter["name"].(string)
			desc, _ := s.Frontmatter["description"].(string)
			if name == "" {
				name = path.Base(path.Dir(s.URI))
			}
			sc.files[s.URI] = true
			for _, f := range files {
				if checkSkillURI(f.URI) == nil {
					sc.files[f.URI] = true
				}
			}
			if dynamic {
				sc.roots = append(sc.roots, strings.TrimSuffix(s.URI, "SKILL.md")) // ends in "/"
			}
			add(ext.SkillEntry{URI: s.URI, Name: name, Description: desc, MIMEType: "text/markdown", Origin: origin})
		}
		if res.NextCursor == "" {
			return nil
		}
		params = &SkillsListParams{Cursor: res.NextCursor}
	}
	return fmt.Errorf("mcp server %q: %s: too many pages", c.cfg.Name, MethodSkillsList)
}
