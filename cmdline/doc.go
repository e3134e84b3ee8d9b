// Package cmdline reads a typed slash-command line and substitutes its arguments into a prompt
// template (DESIGN.md "Commands"; RFC-0051 SkillManagerCap.get_command): Split, Quote, Join and
// ParseLine for the line; Expand, ExpandTemplate, AppendArguments and UsesArguments for the
// body. It is a leaf, standard library only, so packages skill and command expand arguments one
// way.
//
//	name, args, _, err := cmdline.ParseLine(`/review "src/main.go" high`)
//	// name "review", args ["src/main.go" "high"]; err wraps ErrSyntax for an unclosed quote
//	body := cmdline.ExpandTemplate("Review $1 with priority $2.", args)
//	// "Review src/main.go with priority high."
//	body = cmdline.AppendArguments("Costs $10.00.", args)
//	// "Costs $10.00.\n\nUser arguments: src/main.go high"
//
// Whether a body is a template is its owner's decision: a command file always is; a skill is
// when it declares arguments or argument-hint or uses $ARGUMENTS (UsesArguments). A template
// goes through ExpandTemplate; any other body through AppendArguments, which never changes a
// byte of it.
//
// # The rules
//
//   - Splitting: only ASCII whitespace separates arguments. Inside double quotes a backslash
//     escapes only `"` and `\`; inside single quotes nothing is special. A trailing backslash
//     is kept; an unterminated quote is an error naming its byte offset.
//   - Placeholders: $ARGUMENTS (all arguments joined by spaces), $ARGUMENTS[N] (zero-based),
//     and $1…$9 (one-based), where the digit does not continue as a number. "$" followed by
//     any other number is literal: $0, $10, and prices ($5.00, $3.5, $1,000). A malformed
//     $ARGUMENTS[N] expands $ARGUMENTS and leaves the rest as text. Missing arguments become "".
//   - Fenced code blocks (CommonMark ``` and ~~~ fences, also inside list items and block
//     quotes) are literal, fence lines included. Inline code is not.
//   - "\$" gives a literal "$" outside fenced code; every other backslash, and a "$" that starts
//     no placeholder, is literal.
//   - Values are inserted verbatim and never re-expanded.
//   - Arguments not placed by a body are appended as "\n\nUser arguments: <args>"; with no
//     arguments nothing is appended.
//
// The rules compared with Claude Code's, and the reasons: docs/design/cmdline.md.
package cmdline
