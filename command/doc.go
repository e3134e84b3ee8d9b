// Package command implements slash commands (DESIGN.md "Commands"; RFC-0051 CommandResource):
// FileSource serves command files on disk as a capability. Merging every source's commands is
// package view's job; splitting a command line and expanding placeholders is package cmdline's.
//
//	src, err := command.NewFileSource(command.DefaultRoots(projectDir, homeDir), &command.FileOptions{Watch: true})
//	if err != nil {
//		return err
//	}
//	defer src.Close(ctx)
//	cmds, err := src.ListCommands(ctx)
//	p, err := src.GetCommand(ctx, &ext.CommandRequest{Name: "git:commit", Args: []string{"fix typo"}})
//
// DefaultRoots are the project's .claude/commands and .agents/commands, then the user's
// ~/.claude/commands and ~/.agents/commands; configured roots go first.
//
//   - Every regular *.md file up to 6 folder levels below a root is a command, named by its
//     relative path without the extension, folders joined by ":" (git/commit.md is
//     "git:commit"; qualified "file:git:commit"). Dot-files, dot-folders and node_modules are
//     skipped; symlinks are followed, a link into its own ancestry is reported. At most 2000
//     folders are read (and watched) below a root, then one warning.
//   - Frontmatter (description, argument-hint, allowed-tools, model) is read leniently by
//     package frontmatter, every problem a Diagnostic with its line; a file without
//     frontmatter takes its description from its first non-empty line. Other keys are ignored.
//   - A command file is always a template (cmdline.ExpandTemplate). Its body is read by
//     GetCommand (at most 4 MiB), cached, and read again when the file changes; only regular
//     files are opened.
//   - A name found twice keeps the first (earlier root), the other a warning. A name holding
//     whitespace or a control character is not loaded (an error diagnostic).
//   - FileOptions.Namespace puts every command under "<ns>:" (a plugin's commands); the bare
//     name is then not a command of that source.
//   - With FileOptions.Watch, commands_changed is emitted when a command or its file changed.
//   - With FileOptions.Confine (an untrusted project's folder), nothing whose real path lies
//     outside that folder is read: a root, folder or file linking out of it is a warning
//     naming the link and its target, and what is read is opened through an os.Root on it.
//
// Rationale: docs/design/command.md.
package command
