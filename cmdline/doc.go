// Package cmdline reads a typed slash-command line and substitutes its arguments into a prompt
// template: Split, Quote, Join and ParseLine for the line, Expand and ExpandSkill for the body.
//
// It implements the argument side of DESIGN.md "Commands" ("$ARGUMENTS, $1…$9, $ARGUMENTS[N],
// \$ … Arguments are split shell-style") and RFC-0051 SkillManagerCap.get_command. It is a leaf
// (standard library only) so that packages skill and command both expand arguments one way
// without one importing the other.
//
// Where the DESIGN says only "shell-style" and "$ARGUMENTS, $1…$9, $ARGUMENTS[N], \$", these rules
// were chosen:
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
// The name is cmdline rather than args so that it does not collide with the args variables that
// hold what it parses.
package cmdline
