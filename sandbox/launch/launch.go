package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A launcher's argv: its program, Marker, the number of the inherited descriptor of the
// Landlock rule set (NoRules: none, nothing to apply), the uid and the gid map lines of new
// user and network namespaces the launcher makes itself (NoNamespaces twice: none), the
// server's program and the server's argv. MarkerPrefix starts every format's marker, so that
// a launcher of another build refuses a launch instead of misreading it. Marker followed by
// Probe alone is a question: the assembly entry, which can make the namespaces, exits 0; the
// Go code, which cannot (unshare of a user namespace needs a single-threaded process), refuses
// it as a launch without a server.
const (
	Marker       = MarkerPrefix + "-3"
	NoRules      = "-"
	NoNamespaces = "-"
	Probe        = "probe"
	MarkerPrefix = "__agentpool-sandbox"
)

// Rules is what a rule set grants: paths are absolute, and one that does not exist is
// skipped.
type Rules struct {
	// ABI is the Landlock ABI to apply the rules at; below 1 nothing is applied.
	ABI int
	// Read, Write and Exec list what the server may read; read and write; read and execute.
	Read, Write, Exec []string
	// Connect confines TCP connections to Ports (ABI 4 on); binding is never allowed.
	Connect bool
	Ports   []uint16
}

// Args returns the launcher's arguments after its program's name: Marker, fd (a descriptor
// number as the launcher inherits it, or NoRules), the uid and gid map lines ("1000 1000 1";
// NoNamespaces both: no namespaces to make), path and argv.
func Args(fd, uidMap, gidMap, path string, argv []string) []string {
	return append([]string{Marker, fd, uidMap, gidMap, path}, argv...)
}

// MapLine returns the line of a uid_map or gid_map that maps id to itself.
func MapLine(id int) string {
	return strconv.Itoa(id) + " " + strconv.Itoa(id) + " 1"
}

// Main applies the launch and executes the server when this process was started to (os.Args
// [1] starts with the marker), and never returns then: a failure exits with status 126 after
// one line on stderr, which the server's stderr shows ("agentpool sandbox: landlock_restrict_self
// failed: errno 9"), and so does a launch of another format. Otherwise it returns at once.
func Main() {
	if len(os.Args) < 2 || !strings.HasPrefix(os.Args[1], MarkerPrefix) {
		return
	}
	run(os.Args[1:])
}

// check reads a launch, args after the program's name: the rule set's descriptor (-1:
// none), the server's program and its argv, or the line that refuses it.
func check(args []string) (fd int, path string, argv []string, refusal string) {
	if args[0] != Marker {
		return 0, "", nil, "launched as " + args[0] + ", this launcher reads " + Marker + ": agentpool and agentpool-sandbox come from different builds"
	}
	if len(args) < 5 {
		return 0, "", nil, "bad launch: no server to execute"
	}
	fd = -1
	if args[1] != NoRules {
		// Decimal digits only, at most 9 of them, as the assembly entry reads them.
		s := args[1]
		if s == "" || len(s) > 9 {
			return 0, "", nil, "bad rule set descriptor " + s
		}
		fd = 0
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return 0, "", nil, "bad rule set descriptor " + s
			}
			fd = fd*10 + int(c-'0')
		}
	}
	if args[2] != NoNamespaces || args[3] != NoNamespaces {
		return 0, "", nil, "namespaces asked of a launcher that cannot make them (only the assembly entry can): agentpool and agentpool-sandbox disagree"
	}
	return fd, args[4], args[5:], ""
}

// fail ends the process as a refused launch does: one line on stderr, status 126.
func fail(line string) {
	fmt.Fprintf(os.Stderr, "agentpool sandbox: %s\n", line)
	os.Exit(126)
}
