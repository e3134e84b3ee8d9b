// Package trust records which projects the user trusts (DESIGN.md "Trust"): a project's skill
// folders, command files and agentpool.yaml arrive with a clone, and nothing they declare may
// start or connect until the user has said they trust that project, and again whenever what it
// would run changes. It imports decl (the declaration it digests) and go-internal's lockedfile and
// renameio: package host computes the declarations and asks, the CLI records the user's decision.
//
//	st := trust.NewStore(path) // trust.DefaultPath(): $XDG_CONFIG_HOME/agentpool/trust.json
//	v, err := st.Check(projectDir, decls)
//	if err != nil {
//		return err // errors.Is(err, trust.ErrCorrupt): nothing is trusted
//	}
//	if v.Status != trust.Trusted {
//		// v.New names the declarations added or changed since the project was trusted
//	}
//	err = st.Trust(projectDir, trust.Digests(decls), time.Now())
//
// The rules:
//
//   - A record, keyed by the project's real path (RealPath), holds the digests of every server
//     declaration (Decl) the project had when trusted; only digests are stored, never values.
//     A Decl's digest covers where it is declared, its name and every key of the
//     declaration as written (decl.Server: auth and its sub-keys included; a ${VAR} reference
//     as written, never its value). Decl.Vars names the variables of the user's environment
//     a declaration reads, for the prompt that asks to trust it.
//   - A project is Trusted when it has a record holding every declaration it has now. Removing
//     a server keeps the trust; adding or changing one makes it Changed. A project with no
//     declarations is still Untrusted until trusted: its skills' and commands' text reaches a
//     model.
//   - The file is written 0600 in a 0700 folder, atomically. A file that does not parse is
//     ErrCorrupt, naming it, and nothing is trusted — never a silent reset.
//   - Trust and Untrust hold an exclusive lock of trust.json.lock while they read, change and
//     write, so concurrent agentpool processes keep each other's records. Readers take no lock.
package trust
