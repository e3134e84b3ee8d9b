package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listed is what a session lists, each item as name and description, sorted.
type listed struct{ tools, prompts, resources []string }

func listedBy(t *testing.T, cs *mcp.ClientSession) listed {
	t.Helper()
	ctx := context.Background()
	var l listed
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tools.Tools {
		l.tools = append(l.tools, x.Name+": "+x.Description)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range prompts.Prompts {
		l.prompts = append(l.prompts, x.Name+": "+x.Description)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res.Resources {
		l.resources = append(l.resources, x.URI+": "+x.Description)
	}
	l.sort()
	return l
}

// listedIn is what a fresh compile of the session's scope holds.
func listedIn(t *testing.T, f *fixture, sid string) listed {
	t.Helper()
	v, err := view.Compile(context.Background(), f.h.Registry, ext.Scope{SessionID: sid}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var l listed
	for _, x := range v.Tools {
		l.tools = append(l.tools, x.Name+": "+x.Entry.Description)
	}
	for _, x := range v.Commands {
		l.prompts = append(l.prompts, x.Name+": "+x.Description)
	}
	for _, x := range v.Resources {
		l.resources = append(l.resources, x.URI+": "+x.Description)
	}
	l.sort()
	return l
}

func (l *listed) sort() {
	slices.Sort(l.tools)
	slices.Sort(l.prompts)
	slices.Sort(l.resources)
}

func (l listed) diff(o listed) string {
	var b strings.Builder
	for _, k := range []struct {
		kind      string
		got, want []string
	}{{"tools", l.tools, o.tools}, {"prompts", l.prompts, o.prompts}, {"resources", l.resources, o.resources}} {
		if !slices.Equal(k.got, k.want) {
			fmt.Fprintf(&b, "%s:\n  served:   %q\n  compiled: %q\n", k.kind, k.got, k.want)
		}
	}
	return b.String()
}

// TestSkillChangesReachEverySession: each change of the skills on disk (a skill added, its
// description edited, a skill removed) reaches every connected session as exactly one
// prompts/list_changed and one resources/list_changed, and a tools/list_changed only where
// the tools changed.
func TestSkillChangesReachEverySession(t *testing.T) {
	f := newFixture(t, nil)
	const sessions = 4
	var css []*mcp.ClientSession
	var ns []*notes
	for range sessions {
		cs, n := connect(t, f.url, nil)
		css, ns = append(css, cs), append(ns, n)
	}
	for step, change := range []struct {
		what string
		do   func()
	}{
		{"a skill added", func() { writeSkill(t, f.skills, "wave", "Wave at $ARGUMENTS.") }},
		{"a description edited", func() {
			md := "---\nname: wave\ndescription: Waves at people.\n---\nWave at $ARGUMENTS.\n"
			// Written aside and renamed over, so the watcher sees one change.
			tmp := filepath.Join(f.skills, "wave", ".SKILL.md.tmp")
			if err := os.WriteFile(tmp, []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(f.skills, "wave", "SKILL.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a skill removed", func() {
			if err := os.Rename(filepath.Join(f.skills, "wave"), filepath.Join(t.TempDir(), "wave")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		var before []listed
		for _, cs := range css {
			before = append(before, listedBy(t, cs))
		}
		change.do()
		want := int32(step + 1)
		for i, n := range ns {
			testwait.For(t, fmt.Sprintf("%s: session %d's prompts and resources list_changed", change.what, i), func() bool {
				return n.prompts.Load() >= want && n.resources.Load() >= want
			})
		}
		settle()
		for i, n := range ns {
			if p, r := n.prompts.Load(), n.resources.Load(); p != want || r != want {
				t.Errorf("%s: session %d got %d prompts/list_changed and %d resources/list_changed in all, want %d each",
					change.what, i, p, r, want)
			}
			after := listedBy(t, css[i])
			if d := after.diff(listedIn(t, f, css[i].ID())); d != "" {
				t.Errorf("%s: session %d serves a stale view:\n%s", change.what, i, d)
			}
			if n.tools.Load() > int32(step+1) || (slices.Equal(before[i].tools, after.tools) && n.tools.Load() > 0 && step == 0) {
				t.Errorf("%s: session %d got %d tools/list_changed (tools changed: %v)", change.what, i, n.tools.Load(), !slices.Equal(before[i].tools, after.tools))
			}
		}
	}
}

// TestRapidReloadsLeaveNoStaleItem: skill files rewritten in a loop while the sessions'
// upstreams add tools never leave a duplicated or stale tool, prompt or resource: once things
// settle, what each session lists is what a fresh compile of its scope holds.
func TestRapidReloadsLeaveNoStaleItem(t *testing.T) {
	f := newFixture(t, nil)
	const sessions = 3
	var css []*mcp.ClientSession
	for range sessions {
		cs, _ := connect(t, f.url, nil)
		css = append(css, cs)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the skills: added, rewritten, removed, over and over
		defer wg.Done()
		for i := range 60 {
			name := fmt.Sprintf("s%d", i%5)
			dir := filepath.Join(f.skills, name)
			switch i % 3 {
			case 0, 1:
				_ = os.MkdirAll(dir, 0o755)
				md := fmt.Sprintf("---\nname: %s\ndescription: Version %d of %s.\n---\nBody %d.\n", name, i, name, i)
				_ = os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644)
			case 2:
				_ = os.RemoveAll(dir)
			}
			if i%4 == 0 {
				_ = os.WriteFile(filepath.Join(f.skills, "greet", "SKILL.md"),
					[]byte(fmt.Sprintf("---\nname: greet\ndescription: Greets, take %d.\n---\nSay hello.\n", i)), 0o644)
			}
		}
	}()
	for i, cs := range css { // the tools: each session's upstream grows
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 8 {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__add_tool",
					Arguments: map[string]any{"name": fmt.Sprintf("t%d_%d", i, j)}})
				if err != nil || res.IsError {
					t.Errorf("add_tool: %v %+v", err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	// The upstream's last list_changed may still be on its way when add_tool has answered:
	// settled is when the session lists its last tool and what a fresh compile holds.
	for i, cs := range css {
		last := fmt.Sprintf("fault__t%d_7: Echo-like tool added at runtime.", i)
		var l listed
		var d string
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("session %d last listed tools %q; difference from a compile:\n%s", i, l.tools, d)
			}
		})
		testwait.For(t, fmt.Sprintf("session %d to serve its view", i), func() bool {
			l = listedBy(t, cs)
			d = l.diff(listedIn(t, f, cs.ID()))
			return slices.Contains(l.tools, last) && d == ""
		})
	}
	settle()
	for i, cs := range css {
		if d := listedBy(t, cs).diff(listedIn(t, f, cs.ID())); d != "" {
			t.Errorf("session %d, settled:\n%s", i, d)
		}
	}
}
