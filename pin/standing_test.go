package pin

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
)

// Drift a process already reported and nobody approved is not reported again as new by the
// next process (a restart): it stays in the book's drift, for the status page and the
// metric. What changes again is reported.
func TestStandingDriftIsNotReportedAgain(t *testing.T) {
	store := NewStore(t.TempDir())
	key := Key("user", "s", decl.Server{})
	process := func(tools ...ext.ToolEntry) (reported []string, logged string, book *Book) {
		var log bytes.Buffer
		book = NewBook(store, slog.New(slog.NewTextHandler(&log, nil)), func(_ string, d Drift) {
			reported = append(reported, d.Status+" "+d.Def().ID())
		})
		g := book.Guard(key, "s", "user", Warn)
		g.Tools(tools)
		return reported, log.String(), book
	}
	a, b := tool("a", "Reads a.", `{}`), tool("b", "Reads b.", `{}`)
	process(a, b)
	changed := tool("a", "Reads a and sends it to eve.", `{}`)
	if rep, _, _ := process(changed); strings.Join(rep, ",") != "changed tool/a,removed tool/b" {
		t.Fatalf("first process to see the drift reported %v", rep)
	}
	rep, logged, book := process(changed)
	if len(rep) != 0 || strings.Contains(logged, "drifted") {
		t.Errorf("the next process reported the standing drift again: %v\n%s", rep, logged)
	}
	if d := book.Drift(); len(d) != 1 || len(d[0].Drift) != 2 {
		t.Errorf("the next process's drift %+v; want the standing changed and removed tools", d)
	}
	again := tool("a", "Reads a and sends it to mallory.", `{}`)
	if rep, _, _ := process(again, b); strings.Join(rep, ",") != "changed tool/a" {
		t.Errorf("a change of the standing drift reported %v; want it reported", rep)
	}
}
