// Package trust records which projects the user trusts (DESIGN.md "Trust"): a project's own
// skill folders, command files and agentpool.yaml arrive with a clone, and nothing they
// declare may start or connect until the user has said they trust that project, and again
// whenever what it would run changes.
//
// A Store is a JSON file, by default $XDG_CONFIG_HOME/agentpool/trust.json
// (~/.config/agentpool/trust.json when the variable is unset), holding one record per project
// keyed by the project's real path (absolute, symlinks resolved). A record is the set of the
// digests of every server declaration the project had when it was trusted, and when.
//
// It imports only the standard library and decl: package host computes the declarations
// and asks, the CLI records the user's decision.
//
// # Decisions taken where DESIGN.md is silent
//
//   - A declaration's digest covers where it is declared, its name and every key of the
//     declaration as written (decl.Server: auth and its sub-keys included; a ${VAR}
//     reference as written, never its value): a changed value of any of them is a different
//     server. Only digests are stored, never the values: the file holds no secrets an env or
//     header value may carry.
//   - A project is trusted when it has a record and every declaration it has now is in that
//     record. Removing a server keeps the trust (it runs less than what the user accepted);
//     adding or changing one makes the project Changed, with the new declarations named.
//   - A project with no declarations at all is still untrusted until trusted: its skills'
//     and commands' text reaches a model, which is what trusting it accepts.
//   - The file is written 0600 in a 0700 folder, atomically (a temporary file renamed over
//     it), so a crash never leaves half a file. A file that does not parse is an error naming
//     it, and nothing is trusted: never a silent reset that would lose or invent a decision.
//   - Trust and Untrust read, change and write the file under an exclusive flock(2) of
//     trust.json.lock beside it, so two agentpool processes trusting different projects at the
//     same moment keep both records (without it the last rename wins). Readers take no lock:
//     the rename makes every read see a whole file.
package trust
