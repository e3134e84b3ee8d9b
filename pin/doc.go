// Package pin pins the definitions a trusted MCP server lists (DESIGN.md "Context budget,
// pins, sandbox"): what the user approved is what the model sees. A server's tool
// descriptions and schemas go into the model's context and the server may change them at
// any time; trust covers what a project declares, pins cover what its servers say.
//
//	store := pin.NewStore(dir) // $XDG_CONFIG_HOME/agentpool/pins
//	book := pin.NewBook(store, log, onDrift)
//	g := book.Guard(pin.Key(origin, name, decl), name, origin, pin.Block)
//	served, blocked := g.Tools(listing) // blocked: tool → the error a call to it gets
//
// The rules:
//
//   - A Definition is a tool's name, title, description, input and output schema and
//     annotations; a prompt's name, title, description and arguments; a resource template's
//     name, title, description, URI template, MIME type and annotations; a skill an MCP server
//     serves (KindSkill, Guard.Skills: SEP-2640), its name, description, SKILL.md URI and the
//     SHA-256 of its SKILL.md as read (not its text). Its digest is the
//     SHA-256 of its RFC 8785 canonical JSON (Canonical), so a schema re-serialised in
//     another key order or number form is the same definition.
//   - A server's pins are one file, <Key>.json, in the store's folder (0700), written 0600 and
//     atomically, every change under the folder's lock (.lock), so concurrent agentpool
//     processes keep each other's changes. Key digests where the server is declared, its name,
//     type, command, arguments and URL: never its env, headers or auth, whose values are
//     secrets (rotating one keeps the pins). A file holds the definitions' public text only.
//   - The first listing of each kind (tools, prompts, resource templates) pins every
//     definition it lists; the file records which kinds were pinned (Listed), so a kind the
//     server starts listing later is new, not pinned silently. A later listing is
//     compared (Compare): a definition whose digest differs is changed, one not pinned is new,
//     one pinned but not listed removed. What differs is recorded in the file as pending (so
//     `agentpool pins list` shows it with its diffs without connecting) and reported once per
//     definition and digest (Book's log and onDrift).
//   - Policy (Mode): Off does nothing; Warn serves what the server lists; Block keeps changed
//     and new definitions out (Guard.Tools, Guard.Prompts, Guard.Templates), and a call to one
//     (tools/call, prompts/get) fails with ErrBlocked naming `agentpool pins approve SERVER
//     NAME`. A file that does not parse is ErrCorrupt naming it and the `agentpool pins reset
//     KEY` that removes it: under Block every definition of that server is kept out (fails
//     closed), under Warn it is reported.
//   - Approve moves pending definitions to the pins and forgets removed ones (a name that
//     names no drift is an error, and nothing is approved); Reset deletes a
//     server's file (its next listing pins afresh). Book.Changed tells each Guard the store
//     changed, so a running host re-lists and serves what was approved.
//   - Diffs: WordDiff (description and title, word by word) and SchemaDiff (JSON Pointer
//     paths added, removed or changed).
package pin
