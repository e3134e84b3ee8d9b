// Package frontmatter reads the YAML header of a Markdown file — the block between a first "---"
// line and the next — as SKILL.md files (package skill) and command files (package command)
// write it, following the lenient rules of spec/agent-skills-client-implementation.md. It is a
// leaf (the standard library and goccy/go-yaml). What a key means stays in the packages that
// read the keys.
//
//	b := frontmatter.Split(data) // finds the block; copies nothing
//	fm, diags := frontmatter.Parse("skills/pdf/SKILL.md", b.YAML)
//	for _, d := range diags {
//		log.Print(d) // "path:line: severity: message"
//	}
//	if fm == nil {
//		return // one of diags is an error
//	}
//	desc, _ := fm.Values["description"].(string)
//
// The rules:
//
//   - Split skips a byte order mark, accepts LF, CRLF and CR line ends, and takes a fence as
//     "---" alone on its line; a missing or unclosed block is for the caller to judge.
//   - Parse returns every top-level key, unknown ones included, with its decoded value and file
//     line (the opening fence is line 1), and never panics. It returns a nil Frontmatter exactly
//     when a diagnostic is an error. Invalid UTF-8 becomes U+FFFD with a warning.
//   - A `key: value` line whose plain value holds ": " (and `argument-hint: [a] [b]`) is quoted
//     and parsed again when the YAML does not parse, each rewritten line a warning.
//   - Refused with an error: duplicate keys; aliases that expand past ExpansionLimit (4 times the
//     written size plus 64 KiB); YAML of more than 1000 lines that the fast path cannot read.
//   - Frontmatter.RawScalars keeps the source text of the non-string scalars directly inside a
//     top-level mapping (metadata's version: 1.0 reads back as "1.0").
//   - AllowedTools reads allowed-tools one way: a list's entries, or a string split on
//     whitespace and commas outside parentheses ("Bash(git diff:*) Read" is two tools).
//
// Rationale: docs/design/frontmatter.md.
package frontmatter
