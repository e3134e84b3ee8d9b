package pin

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// FormatList returns entries for a person: per server, its pinned definitions, then each
// drift with its diffs (a description's word diff, [-removed-] {+added+}; a schema's JSON
// Pointer paths), and each file that could not be read with its error.
func FormatList(entries []Entry) string { return FormatListHere(entries, nil) }

// FormatListHere is FormatList saying which records are this folder's (here; nil: none
// said): those a serve here uses.
func FormatListHere(entries []Entry, here Here) string {
	var b strings.Builder
	writeList(&b, entries, here)
	return b.String()
}

// whose says where the record's server is declared, for a person.
func whose(r *Record) string {
	switch {
	case r.Origin == "user":
		return "your config"
	case strings.HasPrefix(r.Origin, "plugin "):
		return oneLine(r.Origin)
	}
	return "project " + oneLine(r.Origin)
}

func writeList(w io.Writer, entries []Entry, here Here) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "no pins yet: a server's first listing is pinned")
		return
	}
	for _, e := range entries {
		if e.Err != nil {
			fmt.Fprintf(w, "%s.json: %v\n", e.Key, e.Err)
			continue
		}
		r := e.Record
		drift := r.Drift()
		where := whose(r)
		if here != nil && slices.Contains(here(r.Server), e.Key) {
			where += ", this folder's"
		}
		fmt.Fprintf(w, "%s (%s): %d pinned %s, %d drifted\n", oneLine(r.Server), where, len(r.Pinned), r.PinnedAt.Format("2006-01-02 15:04"), len(drift))
		for _, id := range slices.Sorted(maps.Keys(r.Pinned)) {
			if _, pending := r.Pending[id]; !pending && !slices.Contains(r.Removed, id) {
				fmt.Fprintf(w, "  pinned  %s\n", oneLine(id))
			}
		}
		for _, d := range drift {
			writeDrift(w, d)
		}
	}
}

// FormatDrift returns d as `agentpool pins list` shows it: its status and ID, then its diffs,
// one per line.
func FormatDrift(d Drift) string {
	var b strings.Builder
	writeDrift(&b, d)
	return b.String()
}

func writeDrift(w io.Writer, d Drift) {
	def := d.Def()
	fmt.Fprintf(w, "  %-7s %s\n", d.Status, oneLine(def.ID()))
	if d.Status == New {
		if def.Description != "" {
			fmt.Fprintf(w, "    description: %s\n", oneLine(def.Description))
		}
		if len(def.Schema) > 0 {
			fmt.Fprintf(w, "    schema: %s\n", oneLine(string(def.Schema)))
		}
		return
	}
	if len(d.Description) > 0 {
		fmt.Fprintf(w, "    description: %s\n", oneLine(FormatWordDiff(d.Description)))
	}
	for _, c := range d.Schema {
		writeChange(w, "schema", c)
	}
	for _, c := range d.Output {
		writeChange(w, "output schema", c)
	}
}

func writeChange(w io.Writer, what string, c SchemaChange) {
	switch c.Op {
	case "added":
		fmt.Fprintf(w, "    %s: added %s %s\n", what, oneLine(c.Path), oneLine(string(c.New)))
	case "removed":
		fmt.Fprintf(w, "    %s: removed %s %s\n", what, oneLine(c.Path), oneLine(string(c.Old)))
	default:
		fmt.Fprintf(w, "    %s: changed %s %s → %s\n", what, oneLine(c.Path), oneLine(string(c.Old)), oneLine(string(c.New)))
	}
}

// oneLine quotes control characters (%q's way) so that what a server says (a description, a
// name, a schema) cannot move the terminal's cursor or forge lines of the listing.
func oneLine(s string) string {
	q := fmt.Sprintf("%q", s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return q
}

// Run runs the `agentpool pins` command verb with args and returns what it prints: "list
// [SERVER]" (FormatList), "approve SERVER [NAME…]" (Approve), "reset SERVER" (Reset). A
// command that fails prints nothing: its error says why.
func (s *Store) Run(verb string, args []string) (string, error) { return s.RunHere(nil, verb, args) }

// RunHere is Run in a folder, here saying which records are its own (nil: Run): list says
// which they are, and approve reaches them only (ApproveHere).
func (s *Store) RunHere(here Here, verb string, args []string) (string, error) {
	switch {
	case verb == "list" && len(args) <= 1:
		es, err := s.List(append(args, "")[0])
		return FormatListHere(es, here), err
	case verb == "approve" && len(args) >= 1:
		approve := s.Approve
		if here != nil {
			approve = func(server string, names []string, now time.Time) (int, error) {
				return s.ApproveHere(here, server, names, now)
			}
		}
		n, err := approve(args[0], args[1:], time.Now().UTC())
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("approved %s of %s\n", counted(n, "definition"), args[0]), nil
	case verb == "reset" && len(args) == 1:
		n, err := s.Reset(args[0])
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("removed %s of %s\n", counted(n, "pin file"), args[0]), nil
	}
	return "", fmt.Errorf("pin: unknown command %q with %d arguments", verb, len(args))
}

// counted says n things: "1 definition", "2 definitions".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Line says d in one line for a terminal: what drifted and the command that shows the diff,
// as `tool "send" changed since it was pinned; review it with agentpool pins list mail`. The
// definition's name is quoted (%q), so nothing a server lists can move the cursor; server is
// the config's name.
func (d Drift) Line(server string) string {
	def := d.Def()
	return fmt.Sprintf("%s %q %s; review it with agentpool pins list %s", kindWord(def.Kind), def.key(), d.what(), server)
}

// what says what happened to the definition since it was pinned.
func (d Drift) what() string {
	switch d.Status {
	case New:
		return "is new since the server was pinned"
	case Removed:
		return "was removed since it was pinned"
	}
	return "changed since it was pinned"
}

// shellWord returns s as one word for a POSIX shell: as it is when it holds only characters
// no shell treats specially, single-quoted otherwise.
func shellWord(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@%+,", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
