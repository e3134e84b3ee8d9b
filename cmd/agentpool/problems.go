package main

import (
	"regexp"
	"strings"

	"github.com/agentpool/agentpool/internal/termtext"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

// How a failure is reported: once, on stderr, as one line per failed source, naming the source
// and its most useful cause; --verbose prints the whole error chain instead. The libraries'
// own logs (connpool's "start failed", mcpcap's "degraded") repeat what the view's Problems
// already say, so the CLI's logger passes only errors unless --verbose. --json carries each
// problem whole, and a list command that had any exits exitPartial.

const (
	// maxProblemLine caps one problem line, in runes.
	maxProblemLine = 300
	// stderrMarker is how connpool appends a server's stderr tail to its errors.
	stderrMarker = "; stderr: "
	// startFailed is connpool.ErrStart's text: what failed, for every failed start.
	startFailed = "server failed to start"
	// startTimedOut is connpool.ErrStartTimeout's text.
	startTimedOut = "start timed out"
)

// exitDetail matches connpool's "(pid N exited with code 3)" at the end of an error.
var exitDetail = regexp.MustCompile(`\s*\(pid \d+ ([^()]*)\)$`)

// errorWord marks a stderr line that says what went wrong.
var errorWord = regexp.MustCompile(`(?i)error|fatal|panic|cannot|can't|not found|no such|denied|invalid|failed|refused|missing|unable`)

// summary is p as one line: "<capability>: [<part>: ]<what failed>[ (<how it exited>)][: <cause>]".
// The cause is the line of the server's stderr tail that names an error (the last such line,
// else the last line), or else the innermost three links of the error chain: the chain's middle
// (transport wrappers, "client is closing: EOF") says nothing a user can act on.
func summary(p view.Problem) string {
	s := p.Err
	var tail string
	if i := strings.Index(s, stderrMarker); i >= 0 {
		s, tail = s[:i], s[i+len(stderrMarker):]
	}
	var exit string
	if m := exitDetail.FindStringSubmatchIndex(s); m != nil {
		exit, s = s[m[2]:m[3]], s[:m[0]]
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "degraded: "), "closed: ")
	if i := strings.Index(s, startFailed); i >= 0 {
		s = s[i:] // "mcp server "x": connect: connpool: server "x": " names p.Capability again
	}
	links := strings.Split(s, ": ")
	head, rest := links[0], links[1:]
	timedOut := len(rest) > 0 && strings.HasPrefix(rest[0], startTimedOut)
	if timedOut {
		head, rest = head+": "+rest[0], rest[1:] // "start timed out after 1s" is the cause
	}
	if exit != "" {
		head += " (" + exit + ")"
	}
	var cause string
	switch line := stderrLine(tail); {
	case line != "":
		cause = line
	case timedOut:
		cause = "give it longer with its startup_timeout" // a first npx or uvx run downloads
	case exit != "":
		// The exit says why; the chain's rest is the transport noticing.
	case len(rest) > 3:
		cause = "…: " + strings.Join(rest[len(rest)-3:], ": ")
	default:
		cause = strings.Join(rest, ": ")
	}
	out := p.Capability + ": "
	if p.What != "capability" {
		out += p.What + ": "
	}
	out += head
	if cause != "" {
		out += ": " + cause
	}
	return cell(oneLine(out, maxProblemLine))
}

// stderrLine picks the stderr line most likely to say what went wrong: the last one naming an
// error, else the last non-blank one.
func stderrLine(tail string) string {
	var last string
	lines := strings.Split(tail, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if errorWord.MatchString(l) {
			return l
		}
		if last == "" {
			last = l
		}
	}
	return last
}

// reportProblems prints v's problems on stderr: one line each, or whole with --verbose.
func reportProblems(cmd *cobra.Command, opts *options, v *view.View) {
	for _, p := range v.Problems {
		if opts.verbose {
			warn(cmd, "%s", p)
			continue
		}
		warn(cmd, "%s", summary(p))
	}
}

// partial is the error of a list command whose view has problems: they were reported already
// (on stderr, or in the JSON), so it carries only the exit code.
func partial(v *view.View) error {
	if len(v.Problems) == 0 {
		return nil
	}
	return &exitError{code: exitPartial}
}

// problemsOf returns v's problems, never nil (JSON [] rather than null).
func problemsOf(v *view.View) []view.Problem {
	if v.Problems == nil {
		return []view.Problem{}
	}
	return v.Problems
}

// cell makes s safe for one line or table cell (termtext.Cell).
var cell = termtext.Cell
