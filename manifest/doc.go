// Package manifest keeps, across runs, what each MCP server listed: its tools, prompts and
// resource templates (DESIGN.md "Context budget, pins, sandbox": manifests cached per
// declaration digest), so that a lazy server's tools are listed, and searchable, without
// starting it.
//
//	dir, err := manifest.DefaultDir() // $XDG_CACHE_HOME/agentpool/manifests
//	store := manifest.NewStore(dir, nil)
//	e := store.Entry(key, "github") // key: the declaration's digest (pin.Key)
//	tools, listed, ok := e.Tools()  // what the server listed last, and when
//	e.ListedTools(tools)            // a new listing replaces the entry's tools
//
// The rules:
//
//   - One file per declaration digest, <key>.json, in a folder made 0700, written 0600 and
//     atomically (a temporary file renamed), every change read-modify-written under the
//     folder's lock (.lock), so concurrent agentpool processes keep each other's changes and
//     a reader never sees half a file. A changed declaration is another digest, another file;
//     the old one ages out.
//   - A file holds the server's name and what it listed, as it listed it (before a pin guard
//     or a tool filter): nothing of its declaration, so no env, header, auth or URL secret.
//   - Bounded: after each write the least recently used files (by modification time; reading
//     an entry touches it) are removed until at most Options.MaxEntries files of at most
//     Options.MaxBytes in all remain (DefaultMaxEntries, DefaultMaxBytes).
//   - A file that does not parse is ignored (its entry is empty) with one log line per file
//     and process, and rewritten by the next listing. The cache is an optimisation: a file
//     that cannot be read or written is logged at debug level and costs only a start.
//
// Removing the folder clears the cache.
package manifest
