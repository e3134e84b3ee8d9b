//go:build linux

package main

import "github.com/agentpool/agentpool/sandbox/launch"

// start is the entry point when the program is linked with -ldflags=-E=main.start: it runs
// instead of Go's runtime and main (see the package doc), reading only the static data below.
func start()

// What start reads: the launch's format, the rules it adds and installs, the lines it writes
// (those of package launch's Go code). Each is static data, there before any code runs.
var (
	markerPrefix  = launch.MarkerPrefix
	marker        = launch.Marker + "\x00"
	noRules       = launch.NoRules + "\x00"
	noNamespaces  = launch.NoNamespaces + "\x00"
	probe         = launch.Probe + "\x00"
	deny          = "deny"
	setgroupsPath = "/proc/self/setgroups\x00"
	uidMapPath    = "/proc/self/uid_map\x00"
	gidMapPath    = "/proc/self/gid_map\x00"
	procSelf      = "/proc/self\x00"
	filter        = &launch.Filter
	sayNotByHand  = notByHand
	linePrefix    = "agentpool sandbox: "
	sayLaunchedAs = "agentpool sandbox: launched as "
	sayOtherBuild = ", this launcher reads " + launch.Marker + ": agentpool and agentpool-sandbox come from different builds\n"
	sayNoServer   = "agentpool sandbox: bad launch: no server to execute\n"
	sayBadFD      = "agentpool sandbox: bad rule set descriptor "
	newline       = "\n"
	failedErrno   = " failed: errno "
	stepNoNewPriv = "prctl(PR_SET_NO_NEW_PRIVS)"
	stepAddSelf   = "landlock_add_rule(/proc/self)"
	stepRestrict  = "landlock_restrict_self"
	stepClose     = "close"
	stepSeccomp   = "seccomp"
	stepExecute   = "execute "
	stepUnshare   = "unshare(CLONE_NEWUSER|CLONE_NEWNET)"
	stepOpen      = "open "
	stepWrite     = "write "
	stepCloseFile = "close "
)

// The constants start uses (go_asm.h).
const (
	filterLen  = len(launch.Filter)
	selfRights = launch.SelfRights
)
