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
// ParseFrontmatter and ParseSkill read one SKILL.md leniently and never panic, each problem a
// Diagnostic naming file and line; Validate applies the specification's strict rules; Discover
// scans roots in precedence order (DefaultRoots gives the conventional ones); Manager serves the
// skills. A Manager is safe for concurrent use; Close is idempotent, and afterwards every method
// taking a context returns ext.ErrClosed.
//
// # Discovery
//
//   - A folder holding SKILL.md is a skill, still scanned for nested skills. A root is walked to
//     DefaultMaxDepth (6) levels and DefaultMaxFolders (2000) folders, skipping version control,
//     node_modules, .venv and __pycache__ (other dot-folders are scanned). Every limit hit,
//     skill too deep and missing configured root is a diagnostic, never silence.
//   - The first skill of a name wins (the higher-precedence root); the others are warnings. A
//     name is the frontmatter's when usable (a-z, 0-9, inner hyphens), else the folder's;
//     NamespacedRoots name theirs "<ns>:<name>" ("<ns>.<name>" where ':' is not allowed).
//   - Symlinked skill folders are followed; nothing outside a skill's real folder is read
//     through it (ext.ErrPathTraversal). With Options.Confine (an untrusted project's
//     folders) no root or symlinked folder whose real path lies outside that folder is walked,
//     a skill folder included: a warning names the link and its target as written. Only regular files are read: a frontmatter of at most
//     64 KiB, a skill:// file of at most 32 MiB.
//
// # Serving
//
//   - skill://<name>/<path> (skill://<ns>/<name>/<path> when namespaced) reads a skill's files;
//     skill://<name> alone (skill://<ns>/<name>) is its SKILL.md, here and through
//     ext.Registry.ResolveURI. A URI naming no skill stays not found; SuggestSkill names the
//     URI it may have meant when a skill's name matches as load_skill compares names.
//   - Instructions: a static <available-skills> catalogue (name and description, sorted,
//     XML-escaped; with Options.CatalogueBudget, only the skills that fit in that many
//     characters, taken by root precedence then name, and one closing line counting the
//     others and naming load_skill and the skill:// resources as the way to them) and a dynamic part with the always-active skills and those Options.Matcher
//     picks for a turn. load_skill returns a skill's body with its folder's URI and up to 50
//     files; a name no skill has exactly is compared without case, "-", "_" and spaces (one
//     match is loaded, several are an error naming them), and an unknown name is an error
//     listing the skills the model may load. disable-model-invocation keeps a skill from the
//     model, not from the user.
//   - Every user-invocable skill is a command ("skill:<name>"). Its body is a template only when
//     the frontmatter has arguments or argument-hint or the body uses $ARGUMENTS; any other is
//     returned byte for byte, with "\n\nUser arguments: …" appended when arguments are given.
//   - A skill's MCP servers (`mcp-servers` frontmatter, mcp.json) are built through
//     Options.Children or per session with Manager.NewServers; their tools are
//     "<skill>__<tool>", filtered by allowed-tools (absent: all; empty: none). A server whose
//     HiddenText() is hiddentext.PolicyBlock (hidden_text: block, its own or the config's) has
//     its tools holding hidden text left out, neither listed nor callable, with one warning
//     each; the view removes the hidden text of the others. A ServerDecl is
//     the declaration as written: ${VAR} references are left for the factory, and the host's
//     expands them by the config's rules (config.ExpandServer), so trust fingerprints the text.
//     Those rules read the whole environment: a user's own skills and a plugin's are the user's,
//     installed by them, as the config is; a project's skills' servers are built only once the
//     project is trusted, and agentpool trust names the variables each reads (trust.Decl.Vars).
//   - With Options.Watch, changes are picked up after Options.Debounce (500 ms) and announced as
//     skills_changed, resources_changed (one per file URI touched, a folder or a path gone
//     also as "skill://<name>/<folder>/", every URI under it; past 16, one per skill
//     folder, "skill://<name>/", or "skill://" past 16 skills), commands_changed
//     and tools_changed; a skill broken by an edit is dropped with a diagnostic, the others
//     stay. SubscribeResource accepts any skill:// URI the manager has, since those events are
//     its updates; without Watch it is refused.
//   - Complete completes the path of PathTemplate (skill://{+path}): skill paths, then the files
//     of the skills they name, at most 100 values.
//
// Rationale: docs/design/skill.md.
package skill
