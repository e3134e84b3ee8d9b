// Package skill loads Agent Skills (folders holding a SKILL.md) and serves them as one
// capability, the RFC's SkillManagerCap.
//
// It implements DESIGN.md "Skills" and, of RFC-0051 (spec/RFC-0051-extension-source-architecture.md),
// "SkillManagerCap", "Hot Reload" (filesystem watcher) and the skill side of "URI Routing" and
// "Security Considerations"; the file format is spec/agent-skills-specification.md, the lenient
// reading spec/agent-skills-client-implementation.md, and the skill:// layout SEP-2640.
//
//   - Parsing (ParseFrontmatter, ParseSkill) is lenient and never panics: a BOM, CRLF or CR line ends,
//     unknown keys, allowed-tools as a list, non-string metadata and unquoted `key: value: x`
//     are accepted, each with a Diagnostic naming file and line. A skill without description or
//     with unusable YAML is skipped with an error diagnostic. The file format itself (fences,
//     YAML, the alias cap, allowed-tools) is read by package frontmatter, shared with command
//     files; this package applies the skill rules to what it reads.
//   - Validate applies the specification's strict rules and reports each failure, nothing else.
//   - Discover scans roots in precedence order (DefaultRoots gives the conventional ones).
//   - Manager serves the skills: skill:// resources, instructions, the load_skill tool, the
//     tools of each skill's own MCP servers, slash commands, and change events when watching.
//
// Decisions taken where the specifications are silent:
//
//   - Name. The frontmatter name is kept when it is usable as a skill name: a-z, 0-9 and single
//     inner hyphens, of any length (a long name is a warning). Otherwise (Title Case, spaces,
//     missing) the folder name is used, and failing that a lowercased, hyphenated form of the
//     declared name. Bare skill names are therefore always valid URI authorities.
//   - Namespaces. Options.NamespacedRoots are roots whose skills are named "<ns>:<name>": a
//     plugin's skills folder (Claude Code's .claude-plugin, Codex's .codex-plugin), as both
//     hosts name them "plugin:name", because the same bare name (configure) comes in several
//     plugins. The qualified name is the skill's Name everywhere the manager uses one: the
//     catalogue, load_skill, ListSkills, instructions, its command (/a:configure, qualified
//     skill:a:configure), Manager.Skill, the matcher. A bare name never reaches a namespaced
//     skill (as in Claude Code): load_skill configure is the user's configure, or not found.
//     Skill.Namespace and Skill.BareName give the parts; the frontmatter name is still checked
//     against the folder's, bare. A namespace is kebab-case (ValidNamespace), the plugin-name
//     rule of both hosts; another is a NewManager error. Namespaced roots are scanned and
//     watched after Roots and DefaultRoots (Manager.Roots lists them last, so a prefix of it
//     stays the configured roots); one that does not exist is silent (a plugin without
//     skills). Two folders of one namespace follow the same-name rule below. Where ':' is not
//     allowed the name is written "<ns>.<name>" (Skill.SafeName; '.' is in no bare name): in
//     the tool names of the skill's servers ("a.configure__<tool>", MCP tool names allow only
//     A-Z a-z 0-9 _ - .) and as the skill name given to Options.Children (whose capability is
//     then "a.configure.<server>" in package host); Manager.Skill accepts that form too.
//   - Diagnostics. Discovery reports every broken strict rule as a warning and skips a skill
//     only for an error (no or unclosed frontmatter, unparseable YAML, no description). Keys
//     outside the specification that agentpool reads (user-invocable, argument-hint,
//     always-active/always_active, disable-model-invocation, mcp-servers) or that common
//     clients define (model, when_to_use, version, context, agent, hooks) are silent in
//     discovery; Validate reports them as unknown keys, as the specification allows only six.
//   - Unquoted colons. package frontmatter quotes a `key: value` line whose plain value holds ": "
//     (and an `argument-hint: [a] [b]` line) when the YAML does not parse otherwise; each
//     rewritten line is a warning, and a strict failure (rule yaml).
//   - Values. Non-string metadata values become strings: scalars as written, lists and maps as
//     JSON. allowed-tools is read by frontmatter.AllowedTools: a string is split on whitespace
//     and commas outside parentheses, so "Bash(git diff:*) Read" is two entries; list entries
//     that are lists or mappings are dropped with a warning; `allowed-tools:` with no value,
//     or a mapping, means no tools. argument-hint written as a YAML list ([file]) is read back
//     as "[file]".
//   - Regular files only. SKILL.md, mcp.json, a skill's body and every file read through
//     skill:// are opened with package internal/regfile (through ext.OpenConfined for the
//     last two): a named pipe, a device or a socket is refused at once, checked on the opened
//     descriptor, so a pipe swapped in after a check cannot block. A folder whose SKILL.md is
//     such a file is a skill that fails to load, with an error diagnostic naming it, not a
//     folder silently ignored.
//   - Reading at discovery. SKILL.md is read in one 4 KiB read, more only while the
//     frontmatter is still open, up to 64 KiB (beyond that: error). Bodies are read on first
//     use (Skill.Body) and cached until the file's identity, size or modification time
//     changes; the watcher re-reads skills whose files it saw change even when those are equal.
//   - Discovery order. Roots in the order given; inside a root, lexical depth-first, real
//     folders before symlinked ones. A folder holding SKILL.md is a skill and is still scanned
//     for nested skills (SEP-2640 "Nested skills"); a root may itself be a skill folder. Each
//     real folder is scanned once: a second path to it (a symlink cycle or a second link) is a
//     warning. MaxFolders counts folders read per root. Loading runs on up to GOMAXPROCS
//     goroutines once a root holds 32 skills or more.
//   - Folders skipped. Only folders that hold no skills but may hold thousands of folders:
//     version control (.git, .hg, .svn, .jj, .bzr), node_modules, .venv and __pycache__, one
//     list shared by discovery, Validate and the watcher. Other dot-folders are scanned, as the
//     client guide says: collections keep skills under .system, .curated or .experimental,
//     repositories under .github/skills. The list is applied by name below each root; no rule
//     looks for dot-folders outside the roots (symlinked folders are followed as before).
//   - Limits are never silent. A skill deeper than MaxDepth is not loaded, but each one is
//     reported with its path: once a root is scanned to MaxDepth, the folders below that depth
//     are searched for SKILL.md with what is left of the folder budget (MaxFolders bounds the
//     whole walk, search included); a search cut short by the budget is one warning on the
//     root. A scan stopped by MaxFolders is a warning naming the root and the folder where it
//     stopped.
//   - Configured and default roots. Configured roots (Options.Roots, the roots given to
//     Discover: --skills-dir and skills.dirs) that do not exist are a warning each, with a hint
//     when the path holds a "~" that was not expanded. The conventional roots
//     (Options.DefaultRoots, DiscoverOptions.DefaultRoots) may be missing silently. A
//     configured root that is "~" or starts with "~/" is taken from the home directory
//     (ExpandHome), as users expect; package config does the same for skills.dirs in a file.
//   - One set of rules. Validate finds and reads skills with discovery's own walker and reader
//     (the same skips, depth and folder limits, 64 KiB frontmatter bound, regular-file and
//     symlink checks); what keeps discovery from loading a skill (too deep, budget reached,
//     unreadable folder) is a Validate failure with rule skill-file.
//   - Duplicates. The first skill of a name wins (the higher-precedence root, or the first
//     found in the same root); every other one is a warning naming both SKILL.md paths.
//   - Confinement. Every file read goes through ext.OpenConfined on the skill's real folder: a
//     symlinked skill folder is followed, but a file inside it symlinked from outside is
//     refused (ext.ErrPathTraversal). A SKILL.md or mcp.json symlinked from outside the skill
//     folder is refused at discovery too, and by Validate, without being opened; these are
//     opened through an os.Root on the skill's real folder, so a SKILL.md swapped for such a
//     link after the walk saw it, or a link re-pointed after its check, cannot lead out either.
//     Hard links cannot be told apart from the file they link: a hard link inside a skill to a
//     file elsewhere on the same file system is read as the skill's own (only the folder's
//     owner can make one, and only to a file they can already read).
//   - Walking stays inside (discovery, Validate). Inside a skill folder (a root that is a skill
//     included), a symlinked folder is followed only when it resolves inside that skill's
//     real folder. In a root, outside any skill, a symlinked folder is followed when it
//     resolves inside the root, or when it is a skill folder (holds a SKILL.md): linking a
//     skill in is how skills are installed, and what is inside it is then confined to it. Any
//     other symlinked folder (etcdir -> /etc, a collection elsewhere) is not walked, and is one
//     warning on the link that never says where it leads: no path outside the roots reaches a
//     diagnostic. A collection kept elsewhere is scanned by naming it as a root.
//   - URIs. skill://<name>/<path> addresses files by skill name (flat, nested skills included);
//     skill://<name> alone is its SKILL.md. A namespaced skill is skill://<ns>/<name>/<path>
//     (SEP-2640: the first segment of the skill path an organizational prefix, the last the
//     skill's name); skill://<ns>:<name> is never produced nor accepted, as it is no URL (url.Parse
//     reads ":<name>" as a port). skill://<ns>/<name>/... is the namespaced skill when the
//     namespace holds <name>, and a file of a bare skill named <ns> otherwise; a bare skill's
//     top-level folder or file so hidden is a warning. Either way the path after the skill is
//     confined to its folder as any other. Files with a textual MIME type and valid UTF-8 are
//     Text, anything else a Blob; files over 32 MiB are refused.
//   - disable-model-invocation. A skill so marked is never given to the model, only run by the
//     user as a command: it is left out of the catalogue, of the always-active content (a
//     skill marked both is a warning), of the matcher's choices (it is not offered to the
//     matcher, and a name it returns anyway is ignored) and of load_skill (a tool error saying
//     so, and never suggested as a close name). Its files stay readable as skill:// resources,
//     which clients and users list and read: the mark governs what the model is given.
//   - Instructions. Static is a short explanation followed by <available-skills> with
//     <skill><name/><description/></skill> per skill, sorted by name, XML-escaped, empty when
//     there is no skill the model may use. Dynamic holds one <skill_content name="..."> block
//     per always-active skill; TurnInstructions adds the matcher's picks. A skill with an empty
//     body adds no block. Bodies stay Markdown; only a literal "</skill_content" is escaped.
//   - load_skill returns the body in <skill_content>, followed by the skill's directory URI and
//     up to 50 of its files (SEP "Structured wrapping"). It is offered only when at least one
//     skill is not marked disable-model-invocation (tools_changed when that changes); an
//     unknown name is a tool error listing close names. It takes a name; the skill's own URI
//     (skill://<name> or skill://<name>/SKILL.md) is accepted as one, while the URI of another
//     file of a skill is a tool error naming the skill to load and saying the file is read as
//     a resource, never the SKILL.md body in its place.
//   - Servers per session. Options.Children builds the skills' servers in the manager itself,
//     shared by every user of it; without it (as package host builds it) each session makes a
//     Servers with Manager.NewServers and a factory of its own: the catalogue stays shared
//     while every session gets its own instances of the skills' servers, listed as
//     "<skill>__<tool>" by the Servers, pruned on the manager's reloads, and closed with it.
//     The Servers passes on the manager's tools_changed under its own name. Manager.Diagnostics
//     includes every open Servers' factory failures, each once.
//   - Children. MCP servers come from `mcp-servers` frontmatter (a mapping, or a list of
//     mappings with a name) and a companion mcp.json; the frontmatter wins a name declared in
//     both. A declaration without type is stdio with a command, streamable-http with a url; a
//     stdio server's cwd defaults to the skill folder, relative ones are taken from it. Children
//     are built through Options.Children when the tools are first listed (Children() only
//     reports those built so far, so a registry asking at registration builds nothing), kept while the skill's declarations are unchanged, and closed when the skill goes
//     away or changes them, and at Close. Their tools are named "<skill>__<tool>" (with the
//     skill's SafeName); a skill's allowed-tools entry allows a tool when it equals or
//     glob-matches the tool's name, "<server>__<tool>", "<skill>__<tool>" (SafeName or bare
//     name) or "mcp__<server>__<tool>".
//   - Commands. Every user-invocable skill is a command named after it, qualified "skill:<name>".
//     Its body is a template (placeholders substituted by cmdline.ExpandTemplate) only when the
//     frontmatter holds `arguments` or `argument-hint` (any value, even empty) or the body uses
//     $ARGUMENTS outside fenced code and unescaped (cmdline.UsesArguments). Any other body is
//     returned byte for byte: skills are written as prose, with prices ($10.00) and shell
//     snippets (awk '{print $1}'), not as templates, and a bare $1 is far likelier to be one of
//     those than a placeholder. Arguments given to such a skill are appended as
//     "\n\nUser arguments: <args joined by spaces>"; with no arguments nothing is appended.
//   - Watching. The roots are watched with package fswatch (recursive, roots that do not exist
//     yet included), through symlinked folders only where discovery follows them: a link that
//     leads out of its skill, or out of the root to a folder without a SKILL.md, gets no watch;
//     and no more folders are watched than discovery reads (MaxFolders for each root). After each debounced batch only the roots holding a
//     changed path are walked again, and only skills whose SKILL.md or mcp.json changed are read
//     again. Events: skills_changed when a skill appeared, went away or was read again;
//     resources_changed for those and for any file changed inside a skill folder (SourceURI the
//     one file changed, else the skill's SKILL.md, when one skill is concerned);
//     commands_changed when names, descriptions or argument hints of commands changed;
//     tools_changed when load_skill appears or goes away, a skill's MCP servers or
//     allowed-tools change, or a child reports tools_changed. A rescan runs on the watcher's
//     goroutine; a skill broken by an edit is dropped with an error diagnostic and the others
//     stay loaded.
//   - Close is idempotent: it stops the watcher, then closes every child. Afterwards every method
//     taking a context returns ext.ErrClosed.
package skill
