// Package frontmatter reads the YAML header of a Markdown file: the block between a first "---"
// line and the next "---" line, as SKILL.md files (package skill) and slash-command files
// (package command) write it. It is a leaf: it imports the standard library and
// github.com/goccy/go-yaml, nothing of this module, so both packages read frontmatter one way.
//
// It implements the file-format side of DESIGN.md "Skills" (Parsing) and "Commands" (command
// files), following the lenient rules of spec/agent-skills-client-implementation.md. What a key
// means (name and description rules, a command's description from its first body line) stays in
// the packages that read the keys.
//
//   - Split finds the block: a UTF-8 byte order mark is skipped, lines end with LF, CRLF or a
//     lone CR (as Parse reads them), a fence is "---" alone on its line (trailing spaces and tabs
//     allowed), and nothing is copied.
//     Whether a file without a block, or with an unclosed one, is an error is the caller's call.
//   - Parse reads the YAML between the fences into every top-level key (unknown ones included),
//     its decoded value and its file line, and never panics: go-yaml is third-party code fed
//     with files from cloned repositories, so a panic in it becomes a diagnostic. CRLF and lone
//     CR line ends are read as LF; invalid UTF-8 is replaced by U+FFFD with a warning.
//   - Diagnostics name the file line (the opening fence is line 1), so they print as
//     "path:line: severity: message". Parse returns a nil Frontmatter exactly when one of them
//     is an error.
//
// Decisions taken where the specifications are silent:
//
//   - Unquoted colons. When the YAML does not parse, each `key: value` line whose plain value
//     holds ": " (and an `argument-hint: [a] [b]` line, which YAML reads as a broken list) is
//     single-quoted and the YAML parsed again; each rewritten line is a warning. Real files are
//     full of `description: Use when: ...`, and both skills and commands should load them.
//   - Aliases. YAML aliases let a few hundred bytes decode to millions of values (a "billion
//     laughs"); every later use of a value (strings made of lists, JSON fingerprints) would
//     expand them. A frontmatter whose decoded size exceeds 4 times its written size plus
//     64 KiB is refused with an error naming aliases: written out, a frontmatter holds about as
//     many bytes as it decodes to, so only aliases get there. ExpansionLimit and ExpandedSize
//     are exported so that package config bounds configuration files the same way.
//   - Length. YAML of more than 1000 lines is refused with an error, unless the fast path below
//     reads it: go-yaml's time grows with the square of a mapping's keys (goccy/go-yaml#889), so
//     a 1 MB frontmatter from a cloned repository would hold discovery for minutes. Real
//     frontmatters are a few dozen lines.
//   - Duplicate keys are an error, as YAML says, rather than a silent last-one-wins.
//   - Raw scalars. Values are decoded as YAML says (version: 1.0 is the number 1), but the
//     source text of the non-string scalars directly inside a top-level mapping is kept in
//     Frontmatter.RawScalars, so metadata can read "1.0" back as written.
//   - Fast path. A frontmatter made only of `key: value` lines (and one level of indented
//     `key: value` lines under a bare `key:`) whose values YAML reads as the same plain or
//     simply double-quoted string is parsed without the YAML parser, since discovery reads
//     thousands of them; anything else goes to go-yaml. FuzzParse checks that the two agree.
//   - allowed-tools is read one way (AllowedTools): a list gives its entries; a string is split
//     on whitespace and commas outside parentheses, so "Bash(git diff:*) Read" is the two tools
//     "Bash(git diff:*)" and "Read" and "Bash(git add:*), Read" the two tools it names. Claude
//     Code writes both forms; splitting on spaces inside parentheses would cut a tool pattern in
//     two, and splitting only on commas would glue space-separated tools together.
package frontmatter
