// Package sandbox confines a stdio MCP server to the files, the network and the programs it
// needs (DESIGN.md "Context budget, pins, sandbox"), with what an unprivileged Linux process
// has: Landlock rules and, for no network at all, a user and network namespace of its own.
//
// A declaration (decl.Sandbox) becomes a Policy for one command (Resolve): its paths made
// absolute (~ is the home folder, a relative path is against the server's cwd) and its
// runtime's own files added by a profile (node and npx: node's install, the npm cache,
// ~/.local/lib/node_modules; python and uvx: the interpreter's prefix, ~/.local/lib/pythonX.Y,
// uv's cache and interpreters; static: the binary). A runtime installed in ~/.local/bin gets
// its binary and those folders, never the rest of ~/.local. Every policy also reads the system's libraries and programs' files
// (/usr, /lib…), the /etc files a runtime needs (name resolution, certificates, users), and
// /proc/self, reads and writes /dev/null, may execute its own command, the dynamic loader
// and /usr/bin/env (for #! lines), and gets a private temporary folder, a fresh folder under
// os.TempDir given as TMPDIR, removed when the server ends (Launch.Cleanup). The folder is named
// after the process that made it (its pid, start time and pid namespace), so that one left
// behind by a process killed before it could remove it is found and removed later
// (SweepStale).
//
// Command rewrites an *exec.Cmd to start through a launcher, the entry point of package
// launch: the child, before it runs anything of the server's, applies the rules to itself and
// then executes the server in its place (same pid, same process group). The launcher is the
// agentpool-sandbox program (cmd/agentpool-sandbox; on linux/amd64 linked with
// -ldflags=-E=main.start, an assembly entry that does launch's job without starting Go's
// runtime), found at $AGENTPOOL_SANDBOX_LAUNCHER or
// beside this program's executable (when no other user could have put it there or changed
// it); without one, this program's own executable is
// re-executed with a hidden first argument, as Codex's Linux sandbox re-executes itself, a
// slower start that Launch.Launcher and Launch.String report. Programs that use Command must
// call Main first thing in main for that fallback, and so must the test main of a package
// whose tests start sandboxed commands. Command builds the Landlock rule set in this process
// (building one restricts nothing) and the launcher inherits its descriptor: it adds reading
// its own /proc/self, binds the set to itself, closes the descriptor and executes the server,
// which inherits no descriptor and no variable of the sandbox's.
//
// What is applied: Landlock filesystem rules (read, write, execute), TCP rules (binding is
// never allowed; with a network list, connecting only to its ports, whatever the host, for
// Landlock's rules are per port), and the scoping of abstract unix sockets and signals, each
// as far as the kernel's Landlock ABI reaches (best effort down the levels; Launch.ABI says
// which level). Landlock's TCP rules do not see multipath TCP sockets, which Go's listeners
// open by default: a seccomp filter makes creating one fail (EPROTONOSUPPORT, so programs fall
// back to plain TCP), makes io_uring_setup fail (ENOSYS: io_uring creates sockets unseen by
// the filter) and refuses system calls made through another architecture's calling
// convention. `network: none` adds a new user namespace (the caller's uid and gid mapped
// to themselves) and a new network namespace with no interface up, made by the launcher
// itself when it is the assembly entry (asked once per launcher file), else at the start.
//
// A network list confines TCP only: Landlock has no rule for UDP (DNS included) nor for other
// protocols, which a list leaves open; only `network: none` closes them.
//
// Where the kernel lacks what a policy needs (Landlock at all, its TCP rules for a network
// list, user namespaces for none) and the policy is Required, Command refuses with an error
// wrapping ErrUnavailable whose message is one line naming the server, what is missing
// ("network list not enforced: Landlock ABI 3 < 4") and `required: false`; not Required, it
// applies what the kernel has and Launch.Missing says what it lacks. Below ABI 4 binding a
// port cannot be denied either: Launch.String says so ("bind not denied: Landlock ABI 3 < 4")
// for every policy with a network, which still starts when Required (Landlock's filesystem
// rules are its floor).
//
// For tests, AGENTPOOL_SANDBOX_SIMULATE makes Probe report a kernel without Landlock
// ("no-landlock"), without user namespaces ("no-userns") or with Landlock at most at ABI N
// ("abi=N", which Command then applies), comma-separated.
//
// Elsewhere than on Linux, Probe reports nothing available and Main does nothing.
package sandbox
