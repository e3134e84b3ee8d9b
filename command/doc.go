// Package command implements slash commands (DESIGN.md "Commands"; RFC-0051 CommandResource and
// SkillManagerCap.get_command): splitting a typed command line, expanding argument placeholders,
// command files on disk as a capability, and merging the commands of every source.
//
// # Command lines and expansion
//
// Split reads arguments shell-style and Expand substitutes them into a body. Where the DESIGN says
// only "shell-style" and "$ARGUMENTS, $1…$9, $ARGUMENTS[N], \$", these rules were chosen:
//
//   - Only ASCII whitespace separates arguments. Inside double quotes a backslash escapes only `"`
//     and `\` (as in POSIX shells), so Windows paths survive; inside single quotes nothing is
//     special. A trailing backslash is kept literally rather than rejected, since it is harmless;
//     an unterminated quote is an error naming its byte offset, since guessing would change meaning.
//   - $1…$9 are one digit: $10 is $1 followed by "0" (Claude Code's legacy command syntax reads it
//     the same way), and $0 is literal text since arguments are counted from 1 there.
//   - $ARGUMENTS[N] is zero-based and requires digits and "]"; a malformed index leaves
//     "$ARGUMENTS" expanded and the rest as text, so a typo never swallows text.
//   - A "$" starting no placeholder is literal ("$$" stays "$$"): bodies often hold shell snippets
//     and prices. The only escape is "\$" → "$", and it is not a placeholder; other backslashes are
//     literal because bodies are Markdown full of regexes and paths (so "\\$1" gives "\$1").
//   - Values are inserted verbatim and never re-expanded.
//
// # Command files
//
// FileSource is a capability over command roots; see its doc for naming, frontmatter and
// diagnostics.
//
// # Merging
//
// List and Run merge CommandResources with the precedence file > skill > mcp, then source order;
// see List.
package command
