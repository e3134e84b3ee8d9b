// Package view is the view of a scope, RFC-0051's AgentFactory.compile(): Compile asks every
// capability an ext.Registry makes visible at a Scope for what it offers and assembles one
// immutable View — tools under their final names with where each comes from, merged commands,
// skills, resources and templates, and the system prompt in a static and a dynamic part. The CLI,
// the gateway and agents all go through it, so "what does this caller see?" has one answer. It
// imports ext only.
//
//	cache := view.NewCache(reg, nil)
//	v, err := cache.Get(ctx, ext.Scope{SessionID: "s1"}) // compiled once, then cached
//	if err != nil {
//		return err
//	}
//	for _, p := range v.Problems {
//		log.Print(p) // a capability left out, and why
//	}
//	res, err := v.CallTool(ctx, &ext.ToolCall{Name: "github__search", Arguments: args})
//
// What a View holds, and how it is cached:
//
//   - Names: every served tool name matches ^[a-zA-Z0-9_-]{1,64}$ (ValidToolName), what the
//     Anthropic and OpenAI APIs and strict clients accept. A name as a capability lists it
//     (its qualified name) that matches is served as it is; any other is mapped by ServedName
//     ("deploy.api__read_graph" → "deploy_api__read_graph"; past 64 bytes the namespace is cut
//     around "_" and 8 hex digits of the name's SHA-256, "<namespace cut>_<hash>__<tool>"). A
//     mapped name that a listed name, or another mapped name, also gets takes the hashed form
//     instead, so names are distinct and depend only on what is listed. Tool.Qualified keeps
//     the name before mapping, and calls (CallTool, Route) reach the capability under it.
//   - Hidden text (package hiddentext: zero-width, bidi, tag and other format characters,
//     controls, whole ESC and OSC sequences, HTML comments) is removed from every title and
//     description a capability lists — tools (annotations' titles and every "description" and
//     "title" string inside the schemas too), commands and their arguments, skills, resources,
//     templates — from static instructions, and from a remote capability's dynamic ones. A
//     capability implementing HiddenTextPolicy with hiddentext.PolicyBlock has each such
//     definition left out instead (its instructions too). Either way View.HiddenText reports it
//     and the registry's logger gets one warning per capability and distinct set of reports.
//     The capability's own entries are never changed.
//   - A name under a server's namespace belongs to that server (remote capability), and so
//     does the name ServedName gives one of its tools: another server listing it (prefix "")
//     does not take it, whatever the precedence; it is renamed as a loser and the collision
//     reported. The namespace is the prefix the server's names carry (ToolPrefix, as
//     mcpcap.Cap has: "<server>__" by default, the prefix key when set, none for prefix "");
//     "<server>__" for a capability without ToolPrefix. Where namespaces nest, the longest
//     holding the name owns it: with prefix "gh" beside a server ghost, "ghost__…" is ghost's.
//   - Precedence, for a tool or skill name two capabilities offer: the user's origin before a
//     project's before a remote one, then the narrowest scope (turn, agent, session, pool),
//     then Visible order; for a command name: origin, then command files before skills before
//     MCP prompts, then Visible order. A losing tool is renamed "<capability>__<name>", a
//     losing command listed under its qualified name ("file:review", "skill:pdf"), a losing
//     skill left out; every collision is in View.Collisions. Options.Tools filters served
//     names afterwards.
//   - Prompts are the commands; skill files are read through ext.Registry.ResolveURI, which
//     applies the same precedence. What a policy keeps out of the view cannot be read by URI
//     either: a resource or template left out under hidden_text: block (BlockedResource),
//     unless the view serves the URI otherwise. What a server's pins keep out the server
//     refuses itself; a read that found nothing gives the reason (KeptOut), and a URI another
//     capability serves is read from it.
//   - Failures: a capability that is degraded or closed contributes nothing, and a listing
//     that fails leaves out that part; each is a Problem. Compile never fails because a
//     capability did.
//   - Instructions: Static joins every capability's static part in Visible order, byte-identical
//     while nothing visible changes; remote text is wrapped in <instructions
//     from="mcp://<server>">. Dynamic holds the always-active part and the skills selected for
//     the turn (Options.Prompt, View.TurnInstructions). View.Catalogues reports each static
//     part that is a catalogue kept within a budget (ext.Instructions.Catalogue): the budget,
//     the size served, the entries cut. View.ServerInstructions gives each MCP server's own
//     text apart, unlabelled, for a search index.
//   - Cache: a view is recompiled only when the registry's ext.Stamp for its scope changed, and
//     a view with Problems after CacheOptions.RetryProblems (default 5 s); a cached Get does
//     not allocate. Views of scopes that see the same tools share one Tools list, and those
//     that see the same commands one Commands list. A Cache is safe for concurrent use.
//
// Rationale: docs/design/view.md.
package view
