package ext

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// checkSkillURI checks the part of a skill:// URI after the scheme lexically, before any
// capability sees it: percent-decoded until stable, it must hold no NUL and no backslash, must
// not be absolute (empty skill path, a path starting with "/", a drive letter), and its ".."
// segments must not climb above the first segment of the skill path. The capability that
// serves the URI confines it again, on disk, to the skill's real root.
func checkSkillURI(raw string) error {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return fmt.Errorf("%w %q: a skill URI is skill://<skill-path>/<file-path>", ErrInvalidURI, raw)
	}
	s := rest
	for i := 0; ; i++ {
		d := percentDecodeLenient(s)
		if d == s {
			break
		}
		if i == maxDecodeRounds {
			return fmt.Errorf("skill URI %q: more than %d levels of percent-encoding: %w", raw, maxDecodeRounds, ErrPathTraversal)
		}
		s = d
	}
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return fmt.Errorf("skill URI %q: NUL byte: %w: %w", raw, ErrPathTraversal, ErrInvalidURI)
	case strings.IndexByte(s, '\\') >= 0:
		return fmt.Errorf("skill URI %q: backslash: %w", raw, ErrPathTraversal)
	}
	auth, path, _ := strings.Cut(s, "/")
	switch {
	case auth == "":
		return fmt.Errorf("skill URI %q: absolute path (empty skill path): %w", raw, ErrPathTraversal)
	case auth == "..":
		return fmt.Errorf("skill URI %q: skill path leaves the skill root: %w", raw, ErrPathTraversal)
	case strings.HasPrefix(path, "/") || hasDriveLetter(path) || hasDriveLetter(auth):
		return fmt.Errorf("skill URI %q: absolute path: %w", raw, ErrPathTraversal)
	}
	depth := 1
	for seg := range strings.SplitSeq(path, "/") {
		switch seg {
		case "", ".":
		case "..":
			depth--
			if depth < 1 {
				return fmt.Errorf("skill URI %q: \"..\" leaves the skill: %w", raw, ErrPathTraversal)
			}
		default:
			depth++
		}
	}
	return nil
}

// ResolveURI reads uri as the caller at scope sees it, asking the cheap existence check of each
// candidate first and reading only from the first that says yes:
//   - skill://<skill-path>/<file>: checked lexically for traversal first (ErrPathTraversal),
//     then the visible SkillResources, local ones (origin not remote) before remote ones;
//     a file missing from a local skill is ErrNotFound, never taken from a remote skill of the
//     same name;
//     then, as a fallback, visible ResourceSources registered WithSchemes("skill").
//   - mcp://<server>/<original-uri>: the visible ResourceSource of remote origin named server, asked for
//     original-uri exactly as written in uri.
//   - any other scheme: the visible ResourceSources registered WithSchemes(scheme); with none,
//     the visible SchemeSources that report the scheme now (they start and connect nothing to
//     answer); with none of those either, an error wrapping ErrUnknownScheme naming the
//     scheme, the schemes known in scope so far, and the SchemeSources not connected yet
//     (whose schemes are unknown until they are listed: their resources are reachable as
//     mcp://<server>/<uri>).
//
// Capabilities are asked for the URI as given but with its scheme lower-cased. A URI nobody
// has is ErrNotFound (joined with any errors the existence checks returned). A
// malformed URI is ErrInvalidURI. Errors from the read are wrapped with the capability's name.
func (r *Registry) ResolveURI(ctx context.Context, uri string, scope Scope) ([]ResourceContents, error) {
	if scheme, _, ok := strings.Cut(uri, "://"); ok && strings.EqualFold(scheme, "skill") {
		if err := checkSkillURI(uri); err != nil {
			return nil, err
		}
	}
	u, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	// Capabilities get the URI with its scheme in canonical lower case (RFC 3986 3.1).
	u.Raw = u.Scheme + u.Raw[len(u.Scheme):]
	switch u.Scheme {
	case "skill":
		return r.resolveSkill(ctx, u, scope)
	case "mcp":
		return r.resolveMCP(ctx, u, scope)
	}
	return r.resolveScheme(ctx, u, scope)
}

func (r *Registry) resolveSkill(ctx context.Context, u URI, scope Scope) ([]ResourceContents, error) {
	if !strings.Contains(u.Raw, "://") || u.Authority == "" {
		return nil, fmt.Errorf("%w %q: a skill URI is skill://<skill-path>/<file-path>", ErrInvalidURI, u.Raw)
	}
	entries := r.visibleEntries(scope)
	var local, remote []*entry
	for _, e := range entries {
		if _, ok := e.cap.(SkillResource); !ok {
			continue
		}
		if e.origin.Remote() {
			remote = append(remote, e)
		} else {
			local = append(local, e)
		}
	}
	var errs []error
	for i, e := range append(local, remote...) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", u.Raw, err)
		}
		if i == len(local) && r.localHasSkill(ctx, local, u) {
			// A local skill of this name exists but lacks the file: a remote skill of the same
			// name must not fill in for it, or two skills would be mixed into one.
			// The local sources' errors (a traversal found on disk) stay part of the answer.
			return nil, errors.Join(append([]error{fmt.Errorf("resolve %s: local skill %q has no such file: %w", u.Raw, u.Authority, ErrNotFound)}, errs...)...)
		}
		sr := e.cap.(SkillResource)
		ok, err := sr.SkillExists(ctx, u.Raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("capability %q: skill exists %s: %w", e.name, u.Raw, err))
			continue
		}
		if ok {
			out, err := sr.ReadSkill(ctx, u.Raw)
			if err != nil {
				return nil, fmt.Errorf("capability %q: read %s: %w", e.name, u.Raw, err)
			}
			return out, nil
		}
	}
	return r.readFromScheme(ctx, entries, u, errs)
}

// localHasSkill reports whether a local skill source has the skill u names (its SKILL.md).
func (r *Registry) localHasSkill(ctx context.Context, local []*entry, u URI) bool {
	root := "skill://" + u.Authority + "/SKILL.md"
	for _, e := range local {
		if ok, err := e.cap.(SkillResource).SkillExists(ctx, root); err == nil && ok {
			return true
		}
	}
	return false
}

// readFromScheme asks the entries registered for u's scheme that are ResourceSources.
func (r *Registry) readFromScheme(ctx context.Context, entries []*entry, u URI, errs []error) ([]ResourceContents, error) {
	for _, e := range entries {
		rs, ok := e.cap.(ResourceSource)
		if !ok || !hasScheme(e.schemes, u.Scheme) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", u.Raw, err)
		}
		out, found, err := readIfExists(ctx, e.name, rs, u.Raw)
		if err != nil && !found {
			errs = append(errs, err)
			continue
		}
		if found {
			return out, err
		}
	}
	return nil, errors.Join(append([]error{fmt.Errorf("resolve %s: %w", u.Raw, ErrNotFound)}, errs...)...)
}

// readIfExists asks rs whether it has uri and reads it if so. found reports that the read was
// attempted (its error, if any, is the answer).
func readIfExists(ctx context.Context, name string, rs ResourceSource, uri string) (out []ResourceContents, found bool, err error) {
	ok, err := rs.ResourceExists(ctx, uri)
	if err != nil {
		return nil, false, fmt.Errorf("capability %q: resource exists %s: %w", name, uri, err)
	}
	if !ok {
		return nil, false, nil
	}
	out, err = rs.ReadResource(ctx, uri)
	if err != nil {
		return nil, true, fmt.Errorf("capability %q: read %s: %w", name, uri, err)
	}
	return out, true, nil
}

func hasScheme(schemes []string, s string) bool {
	for _, x := range schemes {
		if x == s {
			return true
		}
	}
	return false
}

func (r *Registry) resolveMCP(ctx context.Context, u URI, scope Scope) ([]ResourceContents, error) {
	// The upstream URI is taken verbatim from Raw so its own percent-escapes survive.
	_, rest, ok := strings.Cut(u.Raw, "://")
	var original string
	if ok {
		_, original, _ = strings.Cut(rest, "/")
	}
	if u.Authority == "" || original == "" {
		return nil, fmt.Errorf("%w %q: an mcp URI is mcp://<server>/<original-uri>", ErrInvalidURI, u.Raw)
	}
	var errs []error
	seen := false
	for _, e := range r.visibleEntries(scope) {
		mr, ok := e.cap.(ResourceSource)
		if !ok || !e.origin.Remote() || e.name != u.Authority {
			continue
		}
		seen = true
		out, found, err := readIfExists(ctx, e.name, mr, original)
		if err != nil && !found {
			errs = append(errs, err)
			continue
		}
		if found {
			return out, err
		}
	}
	if !seen {
		return nil, fmt.Errorf("resolve %s: no MCP server %q visible in %s: %w", u.Raw, u.Authority, scope, ErrNotFound)
	}
	return nil, errors.Join(append([]error{fmt.Errorf("resolve %s: MCP server %q does not have %s: %w", u.Raw, u.Authority, original, ErrNotFound)}, errs...)...)
}

func (r *Registry) resolveScheme(ctx context.Context, u URI, scope Scope) ([]ResourceContents, error) {
	entries := r.visibleEntries(scope)
	for _, e := range entries {
		if _, ok := e.cap.(ResourceSource); ok && hasScheme(e.schemes, u.Scheme) {
			return r.readFromScheme(ctx, entries, u, nil)
		}
	}
	// No registration names the scheme: ask the sources that learn theirs at run time what they
	// know now. ResourceSchemes starts and connects nothing, so an unknown scheme costs nothing.
	var errs []error
	routed := false
	known := []string{"mcp", "skill"} // routed by ResolveURI itself
	var unlearnt []string             // sources not connected yet: schemes unknown
	for _, e := range entries {
		if _, ok := e.cap.(ResourceSource); ok {
			known = append(known, e.schemes...)
		}
	}
	for _, e := range entries {
		ss, ok := e.cap.(SchemeSource)
		rs, isRS := e.cap.(ResourceSource)
		if !ok || !isRS {
			continue
		}
		schemes, err := ss.ResourceSchemes(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("capability %q: resource schemes: %w", e.name, err))
			continue
		}
		known = append(known, schemes...)
		if len(schemes) == 0 && !connected(e.cap) {
			unlearnt = append(unlearnt, strconv.Quote(e.name))
		}
		if !hasScheme(schemes, u.Scheme) {
			continue
		}
		routed = true
		out, found, err := readIfExists(ctx, e.name, rs, u.Raw)
		if found {
			return out, err
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if routed {
		return nil, errors.Join(append([]error{fmt.Errorf("resolve %s: %w", u.Raw, ErrNotFound)}, errs...)...)
	}
	slices.Sort(known)
	msg := fmt.Sprintf("%q in %q (known schemes: %s)", u.Scheme, u.Raw, strings.Join(slices.Compact(known), ", "))
	if len(unlearnt) > 0 {
		msg += fmt.Sprintf("; sources not connected yet: %s (their own schemes are known once they are listed;"+
			" an MCP server's resources are always reachable as mcp://<server>/<uri>)", strings.Join(unlearnt, ", "))
	}
	return nil, errors.Join(append([]error{fmt.Errorf("%w %s", ErrUnknownScheme, msg)}, errs...)...)
}

// connected reports whether c has a live connection, as its HealthReporter says; a capability
// that reports no health has nothing to connect.
func connected(c Capability) bool {
	h, ok := c.(HealthReporter)
	return !ok || h.Health().State == HealthOK
}
