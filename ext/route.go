package ext

import (
	"cmp"
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
	// The scheme ends at the first colon (RFC 3986); "//" must follow it at once, so the part
	// checked is the part ParseURI reads, whatever "://" comes later.
	colon := strings.IndexByte(raw, ':')
	if colon < 0 || !strings.HasPrefix(raw[colon+1:], "//") {
		return fmt.Errorf("%w %q: a skill URI is skill://<skill-path>/<file-path>", ErrInvalidURI, raw)
	}
	s := raw[colon+3:]
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
//   - skill://<skill-path>/<file>: checked lexically for traversal first (ErrPathTraversal).
//     Then one source owns the skill and is the only one asked for the file: the skill path
//     is the outermost prefix of the URI's path (decoded, dot segments resolved; the whole
//     path last) for which a visible SkillResource has <skill-path>/SKILL.md, and its owner
//     is the first such source in the order package view uses for every contested name:
//     origin (local, project, remote), then scope level (turn, agent, session, pool), then
//     Visible order; a capability registered in several visible slots counts as its
//     registration that precedes. Only when no SkillResource has the skill are the visible ResourceSources
//     registered WithSchemes("skill") asked, under the same rule. A file the owner lacks is
//     ErrNotFound naming the skill and its owner, never taken from another source. A URI
//     naming a skill alone (skill://<skill-path>, trailing slash or not) reads the owner's
//     skill://<skill-path>/SKILL.md, and the contents carry that URI.
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
// has is ErrNotFound (joined with any errors the existence checks returned); for a skill://
// URI, a NotFoundError when a SkillSuggester names URIs it may have meant. A
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
	segs := skillSegments(u)
	entries := r.visibleEntries(scope)
	skills := bySkillPrecedence(entries, func(e *entry) bool {
		_, ok := e.cap.(SkillResource)
		return ok
	})
	exists := func(e *entry, uri string) (bool, error) {
		ok, err := e.cap.(SkillResource).SkillExists(ctx, uri)
		if err != nil {
			err = fmt.Errorf("capability %q: skill exists %s: %w", e.name, uri, err)
		}
		return ok, err
	}
	read := func(e *entry, uri string) ([]ResourceContents, error) {
		out, err := e.cap.(SkillResource).ReadSkill(ctx, uri)
		if err != nil {
			return nil, fmt.Errorf("capability %q: read %s: %w", e.name, uri, err)
		}
		return out, nil
	}
	owner, n, errs, err := skillOwner(ctx, skills, segs, exists)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", u.Raw, err)
	}
	if owner == nil {
		// No SkillResource has the skill: the ResourceSources registered for skill:// are the
		// fallback, under the same one-source rule.
		fallback := bySkillPrecedence(entries, func(e *entry) bool {
			_, ok := e.cap.(ResourceSource)
			return ok && hasScheme(e.schemes, u.Scheme)
		})
		exists = func(e *entry, uri string) (bool, error) {
			ok, err := e.cap.(ResourceSource).ResourceExists(ctx, uri)
			if err != nil {
				err = fmt.Errorf("capability %q: resource exists %s: %w", e.name, uri, err)
			}
			return ok, err
		}
		read = func(e *entry, uri string) ([]ResourceContents, error) {
			out, err := e.cap.(ResourceSource).ReadResource(ctx, uri)
			if err != nil {
				return nil, fmt.Errorf("capability %q: read %s: %w", e.name, uri, err)
			}
			return out, nil
		}
		var more []error
		owner, n, more, err = skillOwner(ctx, fallback, segs, exists)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", u.Raw, err)
		}
		errs = append(errs, more...)
		if owner == nil {
			err := errors.Join(append([]error{fmt.Errorf("resolve %s: no visible source has a skill at this path: %w", u.Raw, ErrNotFound)}, errs...)...)
			return nil, suggestSkill(ctx, skills, u.Raw, err)
		}
	}
	if n == len(segs) {
		// The URI names the skill alone: its SKILL.md, which the owner just said it has.
		return read(owner, skillFileURI(segs))
	}
	// Only the owner is asked for the file: a file it lacks is not taken from another source.
	ok, err := exists(owner, u.Raw)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("resolve %s: skill %s is served by %q; it has no %s: %w",
			u.Raw, strings.Join(segs[:n], "/"), owner.name, strings.Join(segs[n:], "/"), ErrNotFound)
	}
	return read(owner, u.Raw)
}

// suggestSkill wraps err, a skill:// URI nobody has, in a NotFoundError naming the URIs the
// visible SkillSuggesters say uri may have meant (in precedence order, each once); err as it is
// when none says any.
func suggestSkill(ctx context.Context, skills []*entry, uri string, err error) error {
	var near []string
	for _, e := range skills {
		if s, ok := e.cap.(SkillSuggester); ok {
			for _, n := range s.SuggestSkill(ctx, uri) {
				if !slices.Contains(near, n) {
					near = append(near, n)
				}
			}
		}
	}
	if len(near) == 0 {
		return err
	}
	return &NotFoundError{Err: err, DidYouMean: near}
}

// skillSegments returns the segments of u's skill path and file path together (decoded, with
// "." and ".." resolved; checkSkillURI has made sure ".." stays inside the first segment).
func skillSegments(u URI) []string {
	segs := []string{u.Authority}
	for seg := range strings.SplitSeq(u.Path, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(segs) > 1 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, seg)
		}
	}
	return segs
}

// skillOwner finds the source that serves the skill a skill:// URI names: for each candidate
// skill path, outermost first (segs[:1], segs[:2], … up to the whole path, which names a
// skill alone), it asks the sources in precedence order whether they have
// <skill-path>/SKILL.md; the first that does owns the skill, and n is the length of its skill
// path (len(segs) when the URI names the skill alone). Errors of sources that could not
// answer are returned too (they are passed over, as the view leaves out a source whose
// listing fails); err is the context's.
func skillOwner(ctx context.Context, sources []*entry, segs []string,
	exists func(*entry, string) (bool, error)) (owner *entry, n int, errs []error, err error) {
	if len(sources) == 0 {
		return nil, 0, nil, nil
	}
	for n = 1; n <= len(segs); n++ {
		probe := skillFileURI(segs[:n])
		for _, e := range sources {
			if err := ctx.Err(); err != nil {
				return nil, 0, nil, err
			}
			ok, err := exists(e, probe)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ok {
				return e, n, errs, nil
			}
		}
	}
	return nil, 0, errs, nil
}

// skillFileURI returns skill://<skill-path>/SKILL.md for the decoded segments of a skill path,
// each escaped again.
func skillFileURI(path []string) string {
	var b strings.Builder
	b.WriteString("skill://")
	for i, seg := range path {
		if i > 0 {
			b.WriteByte('/')
		}
		for j := 0; j < len(seg); j++ {
			c := seg[j]
			if isSegmentByte(c) {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
	}
	b.WriteString("/SKILL.md")
	return b.String()
}

// isSegmentByte reports whether c may stand unescaped in a URI path segment (RFC 3986 pchar).
func isSegmentByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

// bySkillPrecedence returns the entries keep accepts in the order that decides which source
// owns a contested skill, the order package view uses for every contested name: origin
// (local, project, remote), then scope level (turn, agent, session, pool), then Visible order.
// A capability registered in several visible slots appears once, placed as its registration
// that precedes.
func bySkillPrecedence(entries []*entry, keep func(*entry) bool) []*entry {
	type ranked struct {
		e    *entry
		rank int // Visible order
	}
	var rs []ranked
	for i, e := range entries {
		if keep(e) {
			rs = append(rs, ranked{e, i})
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(
			cmp.Compare(a.e.origin.Rank(), b.e.origin.Rank()),
			cmp.Compare(b.e.level, a.e.level), // narrowest first
			cmp.Compare(a.rank, b.rank),
		)
	})
	out := make([]*entry, 0, len(rs))
	seen := make(map[Capability]bool, len(rs))
	for _, r := range rs {
		if !seen[r.e.cap] {
			seen[r.e.cap] = true
			out = append(out, r.e)
		}
	}
	return out
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
