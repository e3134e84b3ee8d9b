// Package command implements slash commands (DESIGN.md "Commands"; RFC-0051 CommandResource and
// SkillManagerCap.get_command): command files on disk as a capability, and merging the commands of
// every source.
//
// # Command lines and expansion
//
// Splitting a typed line and expanding placeholders live in package cmdline, shared with package
// skill; its package doc holds the rules chosen. Run parses lines with cmdline.ParseLine and
// FileSource expands command files with cmdline.ExpandTemplate: a command file is always a template,
// so $ARGUMENTS, $1…$9 and $ARGUMENTS[N] are substituted outside fenced code, $10.00 stays a
// price, and a file without any placeholder gets "User arguments: …" appended. (Skills are
// templates only when they declare arguments or use $ARGUMENTS; see package skill.)
//
// # Command files
//
// FileSource is a capability (no tools, no instructions) over command roots in precedence order:
// configured paths, then DefaultRoots (project .claude/commands and .agents/commands, user
// ~/.claude/commands and ~/.agents/commands). Decisions where DESIGN.md is silent:
//
//   - Every regular *.md file (extension compared case-insensitively) up to 6 directory levels
//     below a root is a command, named by its relative path without the extension, directories
//     joined by ":" as Claude Code does. Dot-files (editor lock files such as .#x.md), dot-folders
//     and node_modules are skipped; symlinked files and directories are followed, a link back into
//     its own ancestry is reported and not followed. At most 2000 folders are read below a root
//     (and watched), as skill discovery does: past that the scan stops with one warning, so a
//     link to a big tree (all -> /) is not walked whole.
//   - Frontmatter is read by package frontmatter, the reader SKILL.md files use, and leniently:
//     BOM, CRLF and invalid UTF-8 tolerated (the last with a warning); an unquoted ": " in a
//     value is quoted with a warning; no frontmatter is fine and the first non-empty body line
//     (without "#" marks) becomes the description; an unclosed "---" makes the whole file the
//     body with a warning; YAML that still does not parse is an error diagnostic with its line,
//     and the keys are then read as plain "key: value" lines so the command still loads.
//     argument-hint keeps the text as typed when YAML reads it as a list ("[pr] [priority]").
//     allowed-tools is read by frontmatter.AllowedTools, as skills read it: a list, or a string
//     split on whitespace and commas outside parentheses ("Bash(git diff:*) Read" is two tools).
//     Other keys are ignored.
//   - Metadata comes from the first 64 KiB of a file at scan time; the body is read by GetCommand
//     (at most 4 MiB), cached, and re-read when the file's size or modification time changes, so
//     GetCommand is current even without a watcher. Leading blank lines of the body are dropped.
//     Both reads open only a regular file (package internal/regfile: a non-blocking open
//     checked on the descriptor), so a file swapped for a named pipe or a device after the scan
//     is refused at once, with an error naming what it is, instead of blocking or never ending.
//   - A name found twice keeps the first (earlier root, or first in directory order within one
//     root); the other file is a warning diagnostic naming the winner. A name with whitespace
//     or a control character is not loaded, with an error diagnostic: a slash command line
//     splits at whitespace, so it could be listed but never run (making it runnable would need
//     a quoting rule no client knows).
//   - FileOptions.Namespace puts a source's commands under "<ns>:" (configure.md is
//     "a:configure", git/commit.md "a:git:commit", qualified "file:a:configure"): a plugin's
//     commands (Claude Code's .claude-plugin, Codex's .codex-plugin), which both hosts name
//     "plugin:name" because several plugins hold the same bare name. The bare name is not a
//     command of that source, so plugins a and b and the user can each have /configure
//     without a collision. A namespace is lower-case kebab-case, the plugin-name rule of both
//     hosts (^[a-z0-9]([a-z0-9-]*[a-z0-9])?$, as skill.ValidNamespace); another is an error of
//     NewFileSource.
//   - With FileOptions.Watch, every change below a root triggers a rescan, and commands_changed is
//     emitted only when a command appeared, disappeared, moved or its file changed.
//
// # Merging
//
// Merging the commands of every source is the view's job (package view: one answer for the CLI,
// the gateway and agents): precedence by origin, then file > skill > mcp, then Visible order; a
// shadowed command stays reachable by its qualified name.
package command
