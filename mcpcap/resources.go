package mcpcap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// legacyResourceNotFound is the error code MCP used for an unknown resource before it moved
// to -32602 (invalid params, mcp.CodeResourceNotFound).
const legacyResourceNotFound = -32002

// isResourceNotFound reports whether err is the server saying the resource does not exist:
// code -32002, or -32602 with "not found" in the message (-32602 alone is any bad params).
func isResourceNotFound(err error) bool {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		return false
	}
	switch wire.Code {
	case legacyResourceNotFound:
		return true
	case mcp.CodeResourceNotFound, jsonrpc.CodeInvalidParams:
		return strings.Contains(strings.ToLower(wire.Message), "not found")
	}
	return false
}

// resourceCache is the listing ResourceExists answers from; a resources list_changed or a
// reconnect drops it.
type resourceCache struct {
	entries   []ext.ResourceEntry
	byURI     map[string]bool
	templates []ext.ResourceTemplateEntry
	matchers  []*uritemplate.Template
	schemes   []string // of entries and templates (ResourceSchemes)
}

// ListResources returns the server's resources (resources/list, all pages). The listing is
// cached until the server says it changed.
func (c *Cap) ListResources(ctx context.Context) ([]ext.ResourceEntry, error) {
	if c.dormant() {
		return nil, nil
	}
	rc, err := c.resources(ctx)
	if err != nil {
		return nil, err
	}
	return c.withoutBlockedSkills(ctx, rc.entries)
}

// ListResourceTemplates returns the server's resource templates (resources/templates/list).
func (c *Cap) ListResourceTemplates(ctx context.Context) ([]ext.ResourceTemplateEntry, error) {
	if c.dormant() {
		return nil, nil
	}
	rc, err := c.resources(ctx)
	if err != nil {
		return nil, err
	}
	return rc.templates, nil
}

// ResourceExists reports whether the server lists uri or one of its templates matches it.
// uri may be the server's own URI or mcp://<server>/<uri>. It answers from the cached listing.
// A dormant Lazy Cap lists nothing: only a URI naming it (mcp://<server>/…) connects it.
func (c *Cap) ResourceExists(ctx context.Context, uri string) (bool, error) {
	if c.isClosed() {
		return false, c.errClosed()
	}
	named := strings.HasPrefix(uri, "mcp://")
	uri, ok := c.unwrapURI(uri)
	if !ok || (!named && c.dormant()) {
		return false, nil
	}
	rc, err := c.resources(ctx)
	if err != nil {
		return false, err
	}
	return rc.has(uri) && c.blockedSkill(uri) == nil, nil
}

func (rc *resourceCache) has(uri string) bool {
	if rc.byURI[uri] {
		return true
	}
	for _, m := range rc.matchers {
		if m.Match(uri) != nil {
			return true
		}
	}
	return false
}

// ReadResource reads uri (the server's URI or mcp://<server>/<uri>) with resources/read. An
// unknown resource is ext.ErrNotFound.
func (c *Cap) ReadResource(ctx context.Context, uri string) ([]ext.ResourceContents, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	orig, ok := c.unwrapURI(uri)
	if !ok {
		return nil, fmt.Errorf("mcp server %q: read %s: %w", c.cfg.Name, uri, ext.ErrNotFound)
	}
	if err := c.blockedSkill(orig); err != nil {
		return nil, fmt.Errorf("mcp server %q: read %s: %w: %w", c.cfg.Name, uri, ext.ErrNotFound, err)
	}
	return c.read(ctx, orig)
}

func (c *Cap) read(ctx context.Context, uri string) ([]ext.ResourceContents, error) {
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	tr := track(ctx, cn)
	res, err := cn.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	tr.Done()
	if err != nil {
		if isResourceNotFound(err) {
			return nil, fmt.Errorf("mcp server %q: read %s: %w (%v)", c.cfg.Name, uri, ext.ErrNotFound, err)
		}
		c.noteCallError(cn, err)
		return nil, fmt.Errorf("mcp server %q: read %s: %w", c.cfg.Name, uri, err)
	}
	out := make([]ext.ResourceContents, 0, len(res.Contents))
	for _, rc := range res.Contents {
		if rc != nil {
			out = append(out, resourceContents(rc))
		}
	}
	return out, nil
}

// noteCallError drops cn when err shows its connection died, so the next access reconnects.
// Reads are safe to repeat, so the caller may simply try again.
func (c *Cap) noteCallError(cn *conn, err error) {
	if lost, _ := connectionLost(err, cn); lost {
		c.drop(cn, err)
	}
}

// unwrapURI strips an mcp://<server>/ wrapper naming this server. ok is false for an
// mcp:// URI naming another server.
func (c *Cap) unwrapURI(uri string) (string, bool) {
	const scheme = "mcp://"
	if !strings.HasPrefix(uri, scheme) {
		return uri, true
	}
	rest := uri[len(scheme):]
	host, orig, found := strings.Cut(rest, "/")
	if !found || host != c.cfg.Name || orig == "" {
		return "", false
	}
	return orig, true
}

// resources returns the cached listing, listing resources and templates when needed.
func (c *Cap) resources(ctx context.Context) (*resourceCache, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	return cachedListing(c, cn, &c.resList, func() (*resourceCache, error) {
		rc := &resourceCache{byURI: map[string]bool{}}
		caps := serverCaps(cn)
		if caps == nil || caps.Resources != nil {
			err := paginate(func(cursor string) (string, error) {
				res, err := cn.session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
				if err != nil {
					c.noteCallError(cn, err)
					return "", err
				}
				for _, r := range res.Resources {
					if r == nil { // a malformed "resources":[null]
						continue
					}
					rc.entries = append(rc.entries, resourceEntry(r))
					rc.byURI[r.URI] = true
				}
				return res.NextCursor, nil
			})
			if err != nil {
				return nil, fmt.Errorf("mcp server %q: resources/list: %w", c.cfg.Name, err)
			}
			err = paginate(func(cursor string) (string, error) {
				res, err := cn.session.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
				if err != nil {
					c.noteCallError(cn, err)
					return "", err
				}
				for _, t := range res.ResourceTemplates {
					if t == nil {
						continue
					}
					rc.templates = append(rc.templates, templateEntry(t))
				}
				return res.NextCursor, nil
			})
			if err != nil {
				return nil, fmt.Errorf("mcp server %q: resources/templates/list: %w", c.cfg.Name, err)
			}
			if c.manifests != nil {
				c.manifests.ListedTemplates(rc.templates)
			}
			rc.templates = c.guardTemplates(rc.templates)
			for _, t := range rc.templates {
				if m, err := uritemplate.New(t.URITemplate); err == nil {
					rc.matchers = append(rc.matchers, m)
				} else {
					c.log.Warn("unparseable resource template", "template", t.URITemplate, "err", err)
				}
			}
		} else {
			if c.manifests != nil {
				c.manifests.ListedTemplates(nil)
			}
			c.guardTemplates(nil) // pinned empty: a template offered later is new
		}
		rc.schemes = schemesOf(rc)
		c.schemes.Store(&rc.schemes)
		return rc, nil
	})
}

func serverCaps(cn *conn) *mcp.ServerCapabilities {
	if ir := cn.session.InitializeResult(); ir != nil {
		return ir.Capabilities
	}
	return nil
}

// ResourceSchemes returns the URI schemes of the server's resources and templates, lower case,
// so the registry can route the server's own schemes ("test://", "file://") without
// configuration. It never starts or connects the server (ext.SchemeSource): with a live
// connection it answers from the listing (listing on that connection when needed); without
// one it answers from the last listing it saw, or none before the first.
func (c *Cap) ResourceSchemes(ctx context.Context) ([]string, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	if cn := c.cur.Load(); c.injected == nil && (cn == nil || cn.dead.Load()) {
		if known := c.schemes.Load(); known != nil {
			return *known, nil
		}
		return nil, nil
	}
	rc, err := c.resources(ctx)
	if err != nil {
		return nil, err
	}
	return rc.schemes, nil
}

// schemesOf returns the lower-case schemes of rc's resources and templates, in order.
func schemesOf(rc *resourceCache) []string {
	out := []string{}
	add := func(uri string) {
		scheme, _, ok := strings.Cut(uri, "://")
		if !ok || scheme == "" {
			return
		}
		scheme = strings.ToLower(scheme)
		if !slices.Contains(out, scheme) {
			out = append(out, scheme)
		}
	}
	for _, e := range rc.entries {
		add(e.URI)
	}
	for _, t := range rc.templates {
		add(t.URITemplate)
	}
	return out
}
