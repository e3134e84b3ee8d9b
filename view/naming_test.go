package view_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/view"
	"github.com/google/go-cmp/cmp"
)

// nameRule is what the Anthropic and OpenAI APIs and strict MCP clients accept as a tool name.
var nameRule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Every name a view serves matches the rule, whatever the capabilities list: dotted plugin
// server names, names past 64 characters, an upstream name with markup or an OSC sequence. A
// call under the served name reaches the capability under the name it listed, a name that
// already matches is served as it is, and a mapped name never takes a name that matches.
func TestServedNamesMatchTheRule(t *testing.T) {
	r := newRegistry(t)
	long := "p-" + strings.Repeat("x", 78) // an 80-character server name
	listed := map[string]*fakeCap{}
	add := func(f *fakeCap) {
		register(t, r, f, ext.LevelPool, ext.Scope{})
		for _, e := range f.tools {
			listed[e.Name] = f
		}
	}
	add(newFake("deploy.api", ext.OriginRemote, "deploy.api__read_graph", "deploy.api__write_graph"))
	add(newFake("deploy_api", ext.OriginRemote, "deploy_api__write_graph"))
	add(newFake(long+".srv", ext.OriginRemote, long+".srv__a", long+".srv__b"))
	add(newFake("bare", ext.OriginRemote, "<script>alert(1)</script>", "read\x1b]0;pwned\x07graph", "", "café"))
	v := compile(t, r, ext.Scope{})

	if len(v.Tools) != len(listed) {
		t.Fatalf("served %d tools, want %d: %q", len(v.Tools), len(listed), toolNames(v))
	}
	ctx := context.Background()
	reached := map[string]bool{}
	for _, tool := range v.Tools {
		if !nameRule.MatchString(tool.Name) {
			t.Errorf("served name %q does not match %s", tool.Name, nameRule)
		}
		if tool.Entry.Name != tool.Name {
			t.Errorf("tool %q: Entry.Name = %q", tool.Name, tool.Entry.Name)
		}
		p, local, err := v.Route(tool.Name)
		if err != nil {
			t.Errorf("Route(%q): %v", tool.Name, err)
			continue
		}
		if f := listed[local]; f == nil || p != ext.ToolProvider(f) {
			t.Errorf("Route(%q) = %s, %q; want the capability that listed %q", tool.Name, capName(p), local, local)
		}
		res, err := v.CallTool(ctx, &ext.ToolCall{Name: tool.Name})
		if err != nil {
			t.Errorf("call %q: %v", tool.Name, err)
			continue
		}
		reached[res.Content[0].Text] = true
	}
	for name, f := range listed {
		if !reached[f.name+":"+name+":"] {
			t.Errorf("no served name reaches %q", name)
		}
	}
	if tool, ok := v.Tool("deploy_api__read_graph"); !ok || tool.Qualified != "deploy.api__read_graph" {
		t.Errorf("deploy_api__read_graph = %+v, %v; want deploy.api__read_graph's", tool, ok)
	}
	if tool, ok := v.Tool("deploy_api__write_graph"); !ok || tool.Capability != "deploy_api" || tool.Qualified != "" {
		t.Errorf("deploy_api__write_graph = %+v, %v; the name that matched as listed keeps it", tool, ok)
	}
	hashed := regexp.MustCompile(`^deploy_api_[0-9a-f]{8}__write_graph$`)
	var again []string
	for _, tool := range v.Tools {
		if tool.Qualified == "deploy.api__write_graph" && !hashed.MatchString(tool.Name) {
			t.Errorf("deploy.api__write_graph is served as %q, want %s", tool.Name, hashed)
		}
		if own := strings.TrimPrefix(tool.Qualified, long+".srv"); own != tool.Qualified &&
			(len(tool.Name) != view.MaxToolName || !strings.HasSuffix(tool.Name, own)) {
			t.Errorf("%s is served as %q: want its server's name cut to %d with a hash, ending %s", tool.Qualified, tool.Name, view.MaxToolName, own)
		}
		again = append(again, tool.Name)
	}

	// The names depend on what is listed, not on the order capabilities are registered in.
	r2 := newRegistry(t)
	for _, name := range []string{"bare", long + ".srv", "deploy_api", "deploy.api"} {
		register(t, r2, listedBy(listed, name), ext.LevelPool, ext.Scope{})
	}
	if diff := cmp.Diff(again, toolNames(compile(t, r2, ext.Scope{}))); diff != "" {
		t.Errorf("served names depend on the order (-first +second):\n%s", diff)
	}

	// Options.Tools sees the served name and the name as listed: a filter written with
	// either applies.
	for _, drop := range []string{"deploy_api__read_graph", "deploy.api__read_graph"} {
		fv, err := view.Compile(ctx, r, ext.Scope{}, &view.Options{Tools: func(names ...string) bool { return !slices.Contains(names, drop) }})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := fv.Tool("deploy_api__read_graph"); ok || len(fv.Tools) != len(v.Tools)-1 {
			t.Errorf("filtered by %q, the view serves %q", drop, toolNames(fv))
		}
	}
}

// capName names the capability p for a failure message.
func capName(p ext.ToolProvider) string {
	if c, ok := p.(ext.Capability); ok {
		return c.Name()
	}
	return fmt.Sprint(p)
}

func listedBy(listed map[string]*fakeCap, name string) *fakeCap {
	for _, f := range listed {
		if f.name == name {
			return f
		}
	}
	return nil
}

// A tool's description and title reach clients without control characters: C0 except newline
// and tab, DEL, C1, and whole ESC and OSC sequences.
func TestToolTextWithoutControlCharacters(t *testing.T) {
	r := newRegistry(t)
	f := newFake("srv", ext.OriginRemote, "srv__x")
	f.tools[0].Description = "line one\nline\ttwo\x1b[31m red\x1b[0m\x1b]8;;https://evil\x07link\x1b]8;;\x1b\\ end\x00\x7f\u0085\u009b2J\r"
	f.tools[0].Title = "Ti\x1b]0;pwned\x07tle\x08"
	f.tools[0].Annotations = &ext.ToolAnnotations{Title: "An\x1bcno\u009d0;x\u009ctated"}
	register(t, r, f, ext.LevelPool, ext.Scope{})
	v := compile(t, r, ext.Scope{})
	tool, ok := v.Tool("srv__x")
	if !ok {
		t.Fatalf("tools = %q", toolNames(v))
	}
	if want := "line one\nline\ttwo redlink end"; tool.Entry.Description != want {
		t.Errorf("description = %q, want %q", tool.Entry.Description, want)
	}
	if tool.Entry.Title != "Title" {
		t.Errorf("title = %q, want %q", tool.Entry.Title, "Title")
	}
	if a := tool.Entry.Annotations; a == nil || a.Title != "Annotated" {
		t.Errorf("annotations = %+v, want title %q", a, "Annotated")
	}
	if f.tools[0].Title != "Ti\x1b]0;pwned\x07tle\x08" {
		t.Error("the capability's own entry was changed")
	}
}

// A qualified name belongs to the server it names: a server with prefix "" that lists
// github__create_issue beside a server named github does not take the name, whichever of the
// two server names sorts first. The collision is reported naming both, and both tools stay
// callable.
func TestQualifiedNameBelongsToItsServer(t *testing.T) {
	for _, bare := range []string{"aaa", "zzz"} {
		t.Run(bare, func(t *testing.T) {
			r := newRegistry(t)
			github := newFake("github", ext.OriginRemote, "github__create_issue", "github__search")
			squat := newFake(bare, ext.OriginRemote, "github__create_issue", "other")
			order := []*fakeCap{github, squat} // as the host registers them: by name
			if bare < "github" {
				order = []*fakeCap{squat, github}
			}
			for _, c := range order {
				register(t, r, c, ext.LevelPool, ext.Scope{})
			}
			v := compile(t, r, ext.Scope{})
			p, local, err := v.Route("github__create_issue")
			if err != nil || p != ext.ToolProvider(github) || local != "github__create_issue" {
				t.Fatalf("Route(github__create_issue) = %s, %q, %v; want the github server's", capName(p), local, err)
			}
			if p, _, err := v.Route("github__search"); err != nil || p != ext.ToolProvider(github) {
				t.Errorf("Route(github__search) = %s, %v", capName(p), err)
			}
			moved := bare + "__github__create_issue"
			if p, local, err := v.Route(moved); err != nil || p != ext.ToolProvider(squat) || local != "github__create_issue" {
				t.Errorf("Route(%s) = %s, %q, %v; want the %s server's", moved, capName(p), local, err, bare)
			}
			if len(v.Collisions) != 1 {
				t.Fatalf("collisions = %+v, want 1", v.Collisions)
			}
			c := v.Collisions[0]
			if c.Name != "github__create_issue" || c.Winner.Capability != "github" || c.Winner.ReachableAs != "github__create_issue" ||
				c.Loser.Capability != bare || c.Loser.ReachableAs != moved {
				t.Errorf("collision = %+v", c)
			}
			if s := c.String(); !strings.Contains(s, "github [") || !strings.Contains(s, bare+" [") {
				t.Errorf("String() = %q; want both servers named", s)
			}
		})
	}
}

// A server's namespace is its own even for a name it does not list: a prefix "" server's
// srv__x does not take the name from server srv, so srv's own loser can be reached there.
func TestQualifiedNameReservedForItsServer(t *testing.T) {
	r := newRegistry(t)
	pool := newFake("srv", ext.OriginRemote, "x")
	sess := newFake("srv", ext.OriginRemote, "x")
	squat := newFake("squat", ext.OriginRemote, "srv__x")
	register(t, r, pool, ext.LevelPool, ext.Scope{})
	register(t, r, squat, ext.LevelPool, ext.Scope{})
	register(t, r, sess, ext.LevelSession, ext.Scope{SessionID: "s"})
	v := compile(t, r, ext.Scope{SessionID: "s"})
	if p, _, err := v.Route("srv__x"); err != nil || p != ext.ToolProvider(pool) {
		t.Errorf("Route(srv__x) = %s, %v; want the pool's srv (its loser's qualified name)", capName(p), err)
	}
	if p, _, err := v.Route("squat__srv__x"); err != nil || p != ext.ToolProvider(squat) {
		t.Errorf("Route(squat__srv__x) = %s, %v", capName(p), err)
	}
	if len(v.Collisions) != 2 {
		t.Errorf("collisions = %+v, want 2", v.Collisions)
	}
}

// A server whose qualified names are past 64 characters owns the names they are served
// under as well: a prefix "" server that lists a long server's tool under its served name (a
// hashed name anyone can compute) does not take it, whichever of the two server names sorts
// first; the collision is reported and the long server's tool keeps its served name.
func TestServedNameOfALongNameBelongsToItsServer(t *testing.T) {
	long := "p-" + strings.Repeat("x", 78)
	served := view.ServedName(long + "__read")
	for _, bare := range []string{"aaa", "zzz"} {
		t.Run(bare, func(t *testing.T) {
			r := newRegistry(t)
			owner := newFake(long, ext.OriginRemote, long+"__read")
			squat := newFake(bare, ext.OriginRemote, served)
			order := []*fakeCap{owner, squat}
			if bare < long {
				order = []*fakeCap{squat, owner}
			}
			for _, c := range order {
				register(t, r, c, ext.LevelPool, ext.Scope{})
			}
			v := compile(t, r, ext.Scope{})
			if p, local, err := v.Route(served); err != nil || p != ext.ToolProvider(owner) || local != long+"__read" {
				t.Errorf("Route(%s) = %s, %q, %v; want the long server's", served, capName(p), local, err)
			}
			if len(v.Collisions) != 1 || v.Collisions[0].Winner.Capability != long || v.Collisions[0].Winner.ReachableAs != served ||
				v.Collisions[0].Loser.Capability != bare {
				t.Fatalf("collisions = %+v, want %s's over %s", v.Collisions, long, bare)
			}
			moved := v.Collisions[0].Loser.ReachableAs
			if p, local, err := v.Route(moved); err != nil || p != ext.ToolProvider(squat) || local != served {
				t.Errorf("Route(%q) = %s, %q, %v; want the %s server's", moved, capName(p), local, err, bare)
			}
		})
	}
}

// staticServer is a lazy server capability listing tools (as the server names them) under
// prefix (nil: none), as the host builds a configured server.
func staticServer(t *testing.T, name string, prefix *string, tools ...string) *mcpcap.Cap {
	t.Helper()
	cfg := mcpcap.Config{Name: name, Lazy: true, Prefix: prefix,
		Server: connpool.ServerConfig{Name: name, Server: decl.Server{Command: "/nonexistent/" + name}}}
	for _, tool := range tools {
		cfg.Tools = append(cfg.Tools, ext.ToolEntry{Name: tool, InputSchema: []byte(`{"type":"object"}`)})
	}
	pool := connpool.New(&connpool.Options{IdleTimeout: -1})
	c, err := mcpcap.New(cfg, mcpcap.WithPool(pool, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()); _ = pool.Close(context.Background()) })
	return c
}

// The namespace a server owns is the prefix its tools are listed under: a server github with
// prefix "gh__" owns gh__…, so a prefix "" server listing gh__create_issue does not take the
// name github's create_issue is served as, whichever server name sorts first, and the
// collision is reported; github__… is not github's, as none of its tools is named so; and a
// prefix "" server owns no namespace, not even its name's.
func TestNamespaceIsThePrefixUsed(t *testing.T) {
	gh, none := "gh__", ""
	for _, bare := range []string{"aaa", "zzz"} {
		t.Run(bare, func(t *testing.T) {
			r := newRegistry(t)
			github := staticServer(t, "github", &gh, "create_issue")
			squat := staticServer(t, bare, &none, "gh__create_issue", "github__search")
			raw := staticServer(t, "raw", &none, "x")
			rawSquat := staticServer(t, "rawsquat", &none, "raw__x")
			caps := []*mcpcap.Cap{github, squat, raw, rawSquat}
			slices.SortFunc(caps, func(a, b *mcpcap.Cap) int { return strings.Compare(a.Name(), b.Name()) })
			for _, c := range caps { // as the host registers them: by name
				register(t, r, c, ext.LevelPool, ext.Scope{})
			}
			v := compile(t, r, ext.Scope{})
			for name, want := range map[string]*mcpcap.Cap{
				"gh__create_issue": github, bare + "__gh__create_issue": squat, "github__search": squat,
				"x": raw, "raw__x": rawSquat,
			} {
				if p, _, err := v.Route(name); err != nil || p != ext.ToolProvider(want) {
					t.Errorf("Route(%s) = %s, %v; want the %s server's", name, capName(p), err, want.Name())
				}
			}
			if len(v.Collisions) != 1 {
				t.Fatalf("collisions = %+v, want 1", v.Collisions)
			}
			c := v.Collisions[0]
			if c.Name != "gh__create_issue" || c.Winner.Capability != "github" || c.Winner.ReachableAs != "gh__create_issue" ||
				c.Loser.Capability != bare || c.Loser.ReachableAs != bare+"__gh__create_issue" {
				t.Errorf("collision = %+v", c)
			}
		})
	}
}

// A namespace inside another server's shorter one belongs to its own server: with github
// under prefix "gh" (no separator) and ghost under its default "ghost__", github listing a
// tool that comes out as ghost__run does not take ghost's ghost__run, whichever server name
// sorts first, and the collision is reported; github keeps the rest of gh….
func TestLongerNamespaceWithinAPrefixIsItsOwn(t *testing.T) {
	gh, ghost := "gh", "ghost__"
	for _, name := range []string{"aaa", "zzz"} {
		t.Run(name, func(t *testing.T) {
			r := newRegistry(t)
			short := staticServer(t, name, &gh, "ost__run", "issue")
			owner := staticServer(t, "ghost", &ghost, "run")
			caps := []*mcpcap.Cap{short, owner}
			slices.SortFunc(caps, func(a, b *mcpcap.Cap) int { return strings.Compare(a.Name(), b.Name()) })
			for _, c := range caps { // as the host registers them: by name
				register(t, r, c, ext.LevelPool, ext.Scope{})
			}
			v := compile(t, r, ext.Scope{})
			for served, want := range map[string]*mcpcap.Cap{
				"ghost__run": owner, name + "__ghost__run": short, "ghissue": short,
			} {
				if p, _, err := v.Route(served); err != nil || p != ext.ToolProvider(want) {
					t.Errorf("Route(%s) = %s, %v; want the %s server's", served, capName(p), err, want.Name())
				}
			}
			if len(v.Collisions) != 1 {
				t.Fatalf("collisions = %+v, want 1", v.Collisions)
			}
			if c := v.Collisions[0]; c.Name != "ghost__run" || c.Winner.Capability != "ghost" || c.Loser.Capability != name {
				t.Errorf("collision = %+v", c)
			}
		})
	}
}
