package view

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/yosida95/uritemplate/v3"
)

// ErrKeptOut is wrapped, beside ext.ErrNotFound, by the error of reading a resource that a
// capability's policy keeps out of the view: a resource or template left out under
// hidden_text: block, or a template a server's pins keep out (ext.ResourceBlocker). The error
// says which definition and why.
var ErrKeptOut = errors.New("kept out of the view")

// keptResource is a resource (uri) or a resource template (uri is its URI template) that the
// view left out, and the report saying why.
type keptResource struct {
	uri      string
	template bool
	why      HiddenText
}

// keptOutError is a read refused because what it names is kept out of the view.
type keptOutError struct {
	uri string
	why error
}

func (e *keptOutError) Error() string {
	return fmt.Sprintf("read %s: %v: %v", e.uri, ErrKeptOut, e.why)
}

func (e *keptOutError) Unwrap() []error { return []error{ext.ErrNotFound, ErrKeptOut, e.why} }

// ReadResource reads uri through the registry's routing at the view's scope (skill://,
// mcp://<server>/…, and upstream schemes): resources are read where they live now, so a file
// of a skill edited since the compile is read as it is. A URI kept out of the view
// (BlockedResource) is refused with that error. A URI no capability has, and that a template
// or skill a capability keeps out names (ext.ResourceBlocker), is refused with its reason.
func (v *View) ReadResource(ctx context.Context, uri string) ([]ext.ResourceContents, error) {
	if err := v.BlockedResource(uri); err != nil {
		return nil, err
	}
	cs, err := v.reg.ResolveURI(ctx, uri, v.Scope)
	if errors.Is(err, ext.ErrNotFound) {
		if kept := v.KeptOut(uri); kept != nil {
			return nil, kept
		}
	}
	return cs, err
}

// BlockedResource returns why reading uri is refused, wrapping ext.ErrNotFound and ErrKeptOut:
// a resource or template the view left out (hidden_text: block) names uri (its own URI, or
// mcp://<capability>/<uri>), compared as the registry routes it (scheme in lower case, the
// server of mcp:// percent-decoded), and no resource or template of the view names it. nil
// otherwise. It reads nothing, and looks at the view's resources only when something is
// kept out. What a capability's own pins keep out, the capability refuses itself: ReadResource
// gives the reason when the read finds nothing.
func (v *View) BlockedResource(uri string) error {
	server, inner := routed(uri)
	for i := range v.caps {
		m := &v.caps[i]
		if len(m.keptRes) == 0 {
			continue
		}
		own := inner
		if server != "" && server != m.reg.Capability.Name() {
			own = uri
		}
		for _, k := range m.keptRes {
			if names(k, own) && !v.serves(own) {
				return &keptOutError{uri: uri, why: fmt.Errorf("capability %q: %s", k.why.Capability, k.why)}
			}
		}
	}
	return nil
}

// KeptOut returns why uri, which no capability has, cannot be read, wrapping ext.ErrNotFound
// and ErrKeptOut: a template or skill a capability keeps out names it (ext.ResourceBlocker:
// a definition changed since the user approved it); nil when none does. It is the reason for
// a read that found nothing, never a refusal of a URI another capability serves.
func (v *View) KeptOut(uri string) error {
	server, inner := routed(uri)
	if server != "" {
		inner = "mcp://" + server + "/" + inner
	}
	for i := range v.caps {
		if b, ok := v.caps[i].reg.Capability.(ext.ResourceBlocker); ok {
			if why := b.BlockedResource(inner); why != nil {
				return &keptOutError{uri: uri, why: why}
			}
		}
	}
	return nil
}

// routed returns uri in the form the registry routes it (ext.Registry.ResolveURI) with its
// scheme in lower case, or for mcp://<server>/<uri> the server (its name percent-decoded) and
// the URI it is asked for, its scheme in lower case too; server is "" for any other scheme.
func routed(uri string) (server, own string) {
	u, err := ext.ParseURI(uri)
	if err != nil || u.Scheme != "mcp" {
		return "", lowerScheme(uri)
	}
	_, rest, _ := strings.Cut(uri, "://")
	_, inner, _ := strings.Cut(rest, "/")
	return u.Authority, lowerScheme(inner)
}

// lowerScheme returns uri (or a URI template) with its scheme in lower case; uri as it is
// when it has none.
func lowerScheme(uri string) string {
	scheme, _, ok := strings.Cut(uri, ":")
	if !ok || strings.ContainsAny(scheme, "/?#{") {
		return uri
	}
	return strings.ToLower(scheme) + uri[len(scheme):]
}

// serves reports whether a resource or template of the view names uri.
func (v *View) serves(uri string) bool {
	for _, r := range v.Resources {
		if lowerScheme(r.URI) == uri {
			return true
		}
	}
	for _, t := range v.Templates {
		if names(keptResource{uri: t.URITemplate, template: true}, uri) {
			return true
		}
	}
	return false
}

// names reports whether k's URI is uri, or k's template matches it, uri's scheme and k's
// compared in lower case (uri's already is).
func names(k keptResource, uri string) bool {
	if !k.template {
		return lowerScheme(k.uri) == uri
	}
	t, err := uritemplate.New(lowerScheme(k.uri))
	return err == nil && t.Match(uri) != nil
}
