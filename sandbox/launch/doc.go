// Package launch is the sandbox's entry point: the code that runs in the process that becomes
// a sandboxed server, between its start and its execve of the server, and the Landlock rule
// set it applies, which the parent builds (Ruleset) and the child inherits as a descriptor
// (Args: its number on the command line, after a marker of the format). The child's whole job
// is no_new_privs, reading its own /proc/self added to the set, the set bound to its thread,
// the descriptor closed, the seccomp filter (Filter), and execve of the server in its place;
// first, when Args carries map lines, the user and network namespaces, which only the
// assembly entry (single-threaded) can make: this Go code refuses such a launch.
// Both ways in use it: the agentpool-sandbox launcher (cmd/agentpool-sandbox, a program of a
// few lines, whose assembly entry on linux/amd64 does the same job, with the same messages,
// without starting Go's runtime) and, where no launcher is installed, package sandbox's Main
// in agentpool re-executed. So one Go code applies a policy.
//
// It imports the standard library's lightest packages and x/sys only: everything a program
// imports is initialised before main, and the launcher's start is part of every sandboxed
// server's.
package launch
