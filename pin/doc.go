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
//     another key order or number form is the same definition. A tool or prompt is known by
//     its name, a resource template by its URI template (Definition.ID): two templates may
//     share a name or have none. A record written when templates were known by name is read
//     with them re-keyed by the URI template their pin holds, digests unchanged.
//   - A server's pins are one file, <Key>.json, in the store's folder (0700), written 0600 and
//     atomically, every change under the folder's lock (.lock), so concurrent agentpool
//     processes keep each other's changes. Key digests where the server is declared, its name,
//     type, command, arguments and URL: never its env, headers or auth, whose values are
//     secrets (rotating one keeps the pins). A file holds the definitions' public text only.
//     It is two JSON values: on its first line an index (format 2: first the file's size,
//     then the listings last found clean, then the kinds listed, the digests of the pinned and pending definitions
//     and the raw digests of the pinned ones), then the record with the texts. A listing
//     whose digest (over its entries' raw digests) is recorded clean for its kind, against
//     the pins it matched, is served with no more read than that; a clean listing is dropped
//     whenever the pins of its kind change or something of its kind is pending. A
//     listing is compared with the index; the record is decoded when something drifted, for
//     a change and for `agentpool pins`. A file whose index does not match its record, or
//     whose size is not the one its index records, is ErrCorrupt, clean listings or not; a
//     file of the record alone (written before the index), or whose index does not record
//     its size, is read and, at a guard's first read, written again with both.
//   - The first listing of each kind (tools, prompts, resource templates) pins every
//     definition it lists; the file records which kinds were pinned (Listed), so a kind the
//     server starts listing later is new, not pinned silently. A later listing is
//     compared (Compare): a definition whose digest differs is changed, one not pinned is new,
//     one pinned but not listed removed. A definition's raw digest (a SHA-256 of its fields
//     as the server sent them, kept beside its pin) finds its digest without canonicalising
//     when it is unchanged; it is a cache, and the pins stay the canonical digests. A listing
//     of any kind equal, entry by entry, to the last one a Guard checked against an
//     unchanged file is served as it was, with no digesting. Tools, Prompts and Templates
//     keep the listing they are given: the caller does not modify it afterwards. What
//     differs is recorded in the file as pending (so
//     `agentpool pins list` shows it with its diffs without connecting) and reported once per
//     definition and digest (Book's log and onDrift); drift a file already holds pending
//     when a process starts was reported by the process that recorded it, and is not
//     reported again (it stays in Book.Drift, for the status page and the metric).
//   - Policy (Mode): Off does nothing; Warn serves what the server lists; Block keeps changed
//     and new definitions out (Guard.Tools, Guard.Prompts, Guard.Templates), and a call to one
//     (tools/call, prompts/get) fails with ErrBlocked naming `agentpool pins approve SERVER
//     NAME`. A file that does not parse is ErrCorrupt naming it and the `agentpool pins reset
//     KEY` that removes it: under Block every definition of that server is kept out (fails
//     closed), under Warn it is reported.
//   - Approve moves pending definitions to the pins and forgets removed ones (a name that
//     names no drift is an error, and nothing is approved); ApproveHere does so in the
//     records a folder's serve uses only (Here: another project's server of the same name
//     keeps its own), as `agentpool pins approve` does; Reset deletes a
//     server's file (its next listing pins afresh). Book.Changed tells each Guard the store
//     changed, so a running host re-lists and serves what was approved.
//   - Diffs: WordDiff (description and title, word by word) and SchemaDiff (JSON Pointer
//     paths added, removed or changed).
package pin
