// Package skill loads Agent Skills (folders holding a SKILL.md) and serves them as one
// capability, RFC-0051's SkillManagerCap (DESIGN.md "Skills"). The file format is
// spec/agent-skills-specification.md, read leniently as spec/agent-skills-client-implementation.md
// describes; the skill:// layout is SEP-2640's.
//
//	m, err := skill.NewManager(&skill.Options{
//		Roots:        []string{"./skills"},
//		DefaultRoots: skill.DefaultRoots(projectDir, homeDir),
//		Watch:        true,
//	})
//	if err != nil {
//		return err
//	}
//	defer m.Close(ctx)
//	for _, d := range m.Diagnostics() {
//		log.Print(d) // "path:line: warning: …"
//	}
//	err = reg.Register(m, ext.LevelPool, ext.Scope{})
//
// The parts:
//
//   - ParseFrontmatter and ParseSkill read one SKILL.md leniently and never panic: a BOM, CRLF,
//     unknown keys, allowed-tools as a list, non-string metadata and unquoted `key: value: x`
//     are accepted, each with a Diagnostic naming file and line; a skill without description
//     or with unusable YAML is an error diagnostic and is skipped.
//   - Validate applies the specification's strict rules and reports each failure.
//   - Discover scans roots in precedence order (DefaultRoots gives the conventional ones).
//   - Manager serves the skills: skill:// resources, the catalogue and instructions, the
//     load_skill tool, the tools of each skill's own MCP servers, slash commands, and change
//     events when watching. It is safe for concurrent use; Close is idempotent, and afterwards
//     every method taking a context returns ext.ErrClosed.
//
// # Discovery
//
//   - A folder holding SKILL.md is a skill and is still scanned for nested skills. Each root is
//     walked to DefaultMaxDepth (6) levels and DefaultMaxFolders (2000) folders; every limit
//     hit, every skill too deep and every missing configured root is a diagnostic, never
//     silence. Conventional roots may be missing silently.
//   - Skipped folders: version control (.git, .hg, .svn, .jj, .bzr), node_modules, .venv and
//     __pycache__. Other dot-folders are scanned.
//   - The first skill of a name wins (the higher-precedence root); every other one is a warning
//     naming both SKILL.md paths.
//   - A skill's name is its frontmatter name when usable as one (a-z, 0-9, single inner
//     hyphens), else its folder's. Options.NamespacedRoots name their skills "<ns>:<name>"
//     (a plugin's), written "<ns>.<name>" where ':' is not allowed (Skill.SafeName).
//   - Symlinked skill folders are followed; a symlink that leads out of its skill, or out of the
//     root to a folder that is no skill, is not walked. "~" in a configured root is the home
//     directory (ExpandHome).
//   - Only regular files are read; SKILL.md's frontmatter at most 64 KiB, a file read through
//     skill:// at most 32 MiB.
//
// # Serving
//
//   - URIs: skill://<name>/<path> (skill://<name> alone is its SKILL.md); a namespaced skill is
//     skill://<ns>/<name>/<path>. Every read is confined to the skill's real folder
//     (ext.ErrPathTraversal otherwise).
//   - Instructions: the static part is <available-skills> with each model-visible skill's name
//     and description, sorted and XML-escaped; the dynamic part holds one <skill_content> block
//     per always-active skill, and TurnInstructions adds the skills Options.Matcher picks.
//   - load_skill returns a skill's body with its directory URI and up to 50 of its files. A
//     skill marked disable-model-invocation is left out of the catalogue, the matcher and
//     load_skill; its files stay readable and its command runs.
//   - Commands: every user-invocable skill is a command named after it (qualified
//     "skill:<name>"). Its body is a template (cmdline.ExpandTemplate) only when the
//     frontmatter holds arguments or argument-hint or the body uses $ARGUMENTS; any other body
//     is returned byte for byte with "\n\nUser arguments: …" appended when arguments are given.
//   - Child servers come from `mcp-servers` frontmatter and a companion mcp.json (the
//     frontmatter wins a name both declare), built through Options.Children when tools are
//     first listed, or per session with Manager.NewServers. Their tools are "<skill>__<tool>";
//     a skill's allowed-tools (absent: all; empty: none) filters them.
//   - Watching (Options.Watch): after each Options.Debounce (default 500 ms) batch, only the
//     changed roots are walked and only changed skills read again. Events: skills_changed,
//     resources_changed (SourceURI set when one file is concerned), commands_changed,
//     tools_changed. A skill broken by an edit is dropped with an error diagnostic; the others
//     stay loaded.
//
// Rationale: docs/design/skill.md.
package skill
