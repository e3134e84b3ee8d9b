// Package cmdline reads a typed slash-command line and substitutes its arguments into a prompt
// template: Split, Quote, Join and ParseLine for the line; Expand, ExpandTemplate, AppendArguments
// and UsesArguments for the body.
//
// It implements the argument side of DESIGN.md "Commands" ("$ARGUMENTS, $1…$9, $ARGUMENTS[N],
// \$ … but only in templates … Arguments are split shell-style") and RFC-0051
// SkillManagerCap.get_command. It is a leaf (standard library only) so that packages skill and
// command both expand arguments one way without one importing the other.
//
// # Templates and the rest
//
// Whether a body is a template is decided by its owner: a command file always is; a skill is when
// its frontmatter declares `arguments` or `argument-hint` or its body uses $ARGUMENTS
// (UsesArguments). A template goes through ExpandTemplate; any other body through
// AppendArguments, which never changes a byte of it. Real skills hold pricing tables ($10.00,
// $5.00) and shell snippets (awk '{print $1}'), so reading every "$1" as a placeholder corrupted
// them, and — since a placeholder had been "found" — also dropped the arguments.
//
// The rule, beside Claude Code's:
//
//	                    agentpool                               Claude Code
//	placeholders        $ARGUMENTS, $ARGUMENTS[N] (0-based),    $ARGUMENTS, $ARGUMENTS[N] (0-based),
//	                    $1…$9 (1-based: $1 is the first)        $N for $ARGUMENTS[N] ($0 is the first)
//	templates           command files; skills declaring         every skill and command
//	                    arguments/argument-hint or using
//	                    $ARGUMENTS
//	$10, $10.00, $5.00  literal (a number, not one digit)       not documented
//	fenced code         literal                                 not documented
//	\$                  a literal $ (not in fenced code)        not documented
//	args not placed     "\n\nUser arguments: <args>" appended   "ARGUMENTS: <value>" appended
//	                    when the body has no placeholder        when the body has no $ARGUMENTS
//	no args             placeholders become ""; nothing         placeholders become ""; nothing
//	                    is appended                             is appended
//
// The arguments appended are joined by single spaces (the line as split, quotes removed), as
// RFC-0051 shows for get_command.
//
// # Decisions
//
// Where the DESIGN says only "shell-style" and "$ARGUMENTS, $1…$9, $ARGUMENTS[N], \$", these rules
// were chosen:
//
//   - Only ASCII whitespace separates arguments. Inside double quotes a backslash escapes only `"`
//     and `\` (as in POSIX shells), so Windows paths survive; inside single quotes nothing is
//     special. A trailing backslash is kept literally rather than rejected, since it is harmless;
//     an unterminated quote is an error naming its byte offset, since guessing would change meaning.
//   - $1…$9 are one digit that does not continue as a number. "$" followed by any other number
//     is literal: $0 (arguments count from 1), $10 and above, and anything read as a price — a
//     number is digits, then ",ddd" groups, then an optional ".digits", so $5.00, $3.5 and $1,000
//     are literal while "$1." at the end of a sentence, "$1.go" and "$1," are placeholders. A price in
//     a table is far likelier than ten positional arguments; ${10} is not supported either.
//   - Fenced code blocks are literal, fence lines included: an example of `awk '{print $1}'` or of
//     the placeholder syntax itself must reach the model as written. Fences follow CommonMark
//     (``` or ~~~, three or more; closed only by the same character at least as many times with
//     nothing but blanks after; a backtick fence's info string holds no backtick; an unclosed
//     fence runs to the end of the body), except that any indentation of blanks and ">" markers
//     is accepted, so fences inside list items and block quotes count. Inline code (`$1`) is not
//     literal: a template may well write a placeholder there on purpose.
//   - $ARGUMENTS[N] is zero-based and requires digits and "]"; a malformed index leaves
//     "$ARGUMENTS" expanded and the rest as text, so a typo never swallows text.
//   - A "$" starting no placeholder is literal ("$$" stays "$$"). The only escape is "\$" → "$",
//     and it is not a placeholder; other backslashes are literal because bodies are Markdown full
//     of regexes and paths (so "\\$1" gives "\$1"). Inside fenced code "\$" is kept as written.
//   - Values are inserted verbatim and never re-expanded.
//
// The name is cmdline rather than args so that it does not collide with the args variables that
// hold what it parses.
package cmdline
