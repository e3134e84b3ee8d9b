// Package launch is the sandbox's entry point: the code that runs in the process that becomes
// a sandboxed server, between its start and its execve of the server. It reads the launch
// (Rules, in the environment variable Env), applies the Landlock rules and the seccomp filter
// to the calling thread, and executes the server in its place. Both ways in use it: the
// agentpool-sandbox launcher (cmd/agentpool-sandbox, a program of a few lines) and, where no
// launcher is installed, package sandbox's Main in agentpool re-executed. So one code applies
// a policy.
//
// It imports the standard library's lightest packages and x/sys only: everything a program
// imports is initialised before main, and the launcher's start is part of every sandboxed
// server's.
package launch
