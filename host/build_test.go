package host

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBuildWiresSourcesIntoRegistry builds a host from a config with skills, commands and a lazy
// MCP server (so nothing is started) and checks what the pool scope sees.
func TestBuildWiresSourcesIntoRegistry(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills/greet/SKILL.md"), "---\nname: greet\ndescription: Say hello.\n---\nHello $ARGUMENTS!\n")
	writeFile(t, filepath.Join(dir, "commands/review.md"), "---\ndescription: Review a file\n---\nReview $1 carefully.\n")
	cfgPath := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfgPath, `
skills: {dirs: [skills]}
commands: {dirs: [commands]}
mcp_servers:
  lazy:
    command: /nonexistent/server
    lazy: true
    tools: [{name: ping, description: Ping it, read_only: true}]
  private:
    command: /nonexistent/other
    scope: session
`)
	ctx := context.Background()
	h := buildHost(t, cfgPath, "", Options{})

	var names []string
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, ","); got != "skills,commands,lazy" {
		t.Fatalf("pool scope sees %s", got)
	}
	tools, err := h.Current().Servers[0].Tools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "lazy__ping" || !tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("lazy tools = %+v, %v", tools, err)
	}
	out, err := h.Registry.ResolveURI(ctx, "skill://greet/SKILL.md", ext.Scope{})
	if err != nil || !strings.Contains(out[0].Text, "Hello $ARGUMENTS!") {
		t.Fatalf("read skill = %v, %v", out, err)
	}
	if _, err := h.OpenSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	seen := func(scope ext.Scope) bool {
		for _, c := range h.Registry.Visible(scope) {
			if c.Name() == "private" {
				return true
			}
		}
		return false
	}
	if !seen(ext.Scope{SessionID: "s1"}) || seen(ext.Scope{SessionID: "s2"}) || seen(ext.Scope{}) {
		t.Fatal("session-scoped server must be visible in its session only")
	}
	if err := h.Registry.CloseScope(ctx, ext.Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if seen(ext.Scope{SessionID: "s1"}) {
		t.Fatal("closed session still sees its server")
	}
}

func TestBuildRejectsDisallowedSkillServer(t *testing.T) {
	h := buildHost(t, "x.yaml", "extensions: {allowed_commands: [node]}\n", Options{})
	_, err := h.skillServer(context.Background(), nil, "p#1", "pdf", skillDecl("/bin/sh"), false, h.Current().Config.Extensions.AllowedCommands, os.LookupEnv)
	if err == nil || !strings.Contains(err.Error(), "allowed_commands") {
		t.Fatalf("err = %v", err)
	}
}

// TestOpenSessionFailureLeavesNothing: a failed OpenSession unregisters what it registered and
// leaves what was there before.
func TestOpenSessionFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	h := buildHost(t, "x.yaml", "mcp_servers:\n  a: {command: /nonexistent/a, scope: session}\n  b: {command: /nonexistent/b, scope: session}\n", Options{})
	if _, err := h.OpenSession(ctx, ""); err == nil {
		t.Fatal("empty session id accepted")
	}
	s1 := ext.Scope{SessionID: "s1"}
	// Something else already holds the name "b" in s1: opening s1 fails on it after registering a.
	other, err := h.newServer("b", h.Current().Config.MCPServers["b"], "s1", pinSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Registry.Register(other, ext.LevelSession, s1); err != nil {
		t.Fatal(err)
	}
	if _, err := h.OpenSession(ctx, "s1"); !errors.Is(err, ext.ErrDuplicate) {
		t.Fatalf("open with a duplicate: %v", err)
	}
	var names []string
	for _, c := range h.Registry.Visible(s1) {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, ","); got != "skills,commands,b" {
		t.Fatalf("after a failed open, s1 sees %s; want the earlier b only", got)
	}
}

// TestBuildFailureCleansUp: a Build that fails returns the error, never a half-built host,
// and leaves nothing running (goleak checks that the skill and command watchers are gone).
// Before Build stopped closing its nil result, each of these crashed.
func TestBuildFailureCleansUp(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		servers mcpcap.Servers
		want    string
	}{
		"name taken":         {mcpcap.Servers{"skills": {Command: "/nonexistent/server"}}, `mcp_servers.skills: name "skills" is already used by skills`},
		"session name taken": {mcpcap.Servers{"commands": {Command: "/nonexistent/server", Scope: "session"}}, `mcp_servers.commands: name "commands"`},
		// Configs made in code, which Parse would have refused, are checked again.
		"attempts":        {mcpcap.Servers{"a": {Command: "/nonexistent/server", Retry: decl.Retry{Attempts: 21}}}, "mcp_servers.a.retry.attempts"},
		"bad tool filter": {mcpcap.Servers{"a": {Command: "/nonexistent/server", AllowTools: []string{"[bad"}}}, "mcp_servers.a.allow_tools[0]"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := &config.Config{Skills: skill.Config{Dirs: []string{dir}}, MCPServers: tc.servers}
			h, err := Build(context.Background(), cfg, Options{})
			if err == nil || h != nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Build = %v, %v; want no host and an error with %q", h, err, tc.want)
			}
		})
	}
}

// closeRecorder is a capability that counts its Close calls.
type closeRecorder struct {
	name   string
	closed atomic.Int32
}

func (c *closeRecorder) Name() string                    { return c.name }
func (c *closeRecorder) Close(ctx context.Context) error { c.closed.Add(1); return nil }

// withKind adds a kind after the real ones for the test's duration.
func withKind(t *testing.T, k kind) {
	t.Helper()
	saved := kinds
	kinds = append(slices.Clone(kinds), k)
	t.Cleanup(func() { kinds = saved })
}

// TestBuildFailureClosesWhatItBuilt: when a later step fails, every capability built by an
// earlier one (the skill manager with its watcher, the command files, an MCP server) and the
// pool are closed; so are what a failing kind built before its error, and what was not yet
// registered when registration failed.
func TestBuildFailureClosesWhatItBuilt(t *testing.T) {
	dir := t.TempDir()
	cfgData := "skills: {dirs: [" + dir + "]}\nmcp_servers:\n  a: {command: /nonexistent/server}\n"
	ctx := context.Background()

	t.Run("provision", func(t *testing.T) {
		var seen *batch
		partial := &closeRecorder{name: "partial"}
		withKind(t, kind{"broken", func(pl *planner) error {
			pl.add(&Entry{Key: Key{Name: "partial"}, Owner: "broken", Source: "broken",
				start: func(_ context.Context, b *batch) (ext.Capability, error) {
					seen = b
					return partial, errors.New("boom")
				}})
			return nil
		}})
		cfg, err := config.Parse("cfg.yaml", []byte(cfgData))
		if err != nil {
			t.Fatal(err)
		}
		h, err := Build(ctx, cfg, Options{})
		if h != nil || err == nil || !strings.Contains(err.Error(), "build broken: boom") {
			t.Fatalf("Build = %v, %v", h, err)
		}
		if partial.closed.Load() != 1 {
			t.Error("what the failing kind built was not closed")
		}
		if st := seen.cap(Key{Name: "a"}).(*mcpcap.Cap).Status().State; st != mcpcap.StateClosed {
			t.Errorf("server a is %v, want closed", st)
		}
		if _, err := seen.cap(skillsKey).(*skill.Manager).ListSkills(ctx); !errors.Is(err, ext.ErrClosed) {
			t.Errorf("skill manager after a failed Build: %v, want ErrClosed", err)
		}
		if _, err := seen.cap(commandsKey).(*command.FileSource).ListCommands(ctx); !errors.Is(err, ext.ErrClosed) {
			t.Errorf("command files after a failed Build: %v, want ErrClosed", err)
		}
	})

	t.Run("register", func(t *testing.T) {
		bad := &closeRecorder{name: "bad"}
		after := &closeRecorder{name: "after"}
		withKind(t, kind{"refused", func(pl *planner) error {
			for _, c := range []*closeRecorder{bad, after} {
				var opts []ext.RegisterOption
				if c == bad {
					opts = []ext.RegisterOption{ext.WithSchemes("mcp")} // a reserved scheme
				}
				pl.add(&Entry{Key: Key{Name: c.name}, Owner: "refused." + c.name, Source: "refused." + c.name, Opts: opts,
					start: func(context.Context, *batch) (ext.Capability, error) { return c, nil }})
			}
			return nil
		}})
		cfg, err := config.Parse("cfg.yaml", []byte(cfgData))
		if err != nil {
			t.Fatal(err)
		}
		h, err := Build(ctx, cfg, Options{})
		if h != nil || err == nil || !strings.Contains(err.Error(), "register refused.bad") {
			t.Fatalf("Build = %v, %v", h, err)
		}
		if bad.closed.Load() != 1 || after.closed.Load() != 1 {
			t.Errorf("unregistered capabilities closed %d and %d times, want once each", bad.closed.Load(), after.closed.Load())
		}
	})
}

// TestKindsCoverConfigSections: every extension kind's section in config.Config has an entry
// in the kinds table and every entry a section, so a kind added on one side only fails here.
func TestKindsCoverConfigSections(t *testing.T) {
	hostOwn := map[string]bool{"pool": true, "extensions": true, "server": true, // the host's and the server's own sections
		"import":  true, // the loader's: what it imports is in mcp_servers
		"pins":    true, // the host's: the default pin policy of mcp_servers
		"sandbox": true} // the host's: the default sandbox of mcp_servers
	var sections []string
	typ := reflect.TypeFor[config.Config]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" && !hostOwn[name] {
			sections = append(sections, name)
		}
	}
	var keys []string
	for _, k := range kinds {
		keys = append(keys, k.key)
	}
	slices.Sort(sections)
	slices.Sort(keys)
	if !slices.Equal(sections, keys) {
		t.Fatalf("config sections %v, kinds %v: each kind needs both", sections, keys)
	}
}

// TestServerToolNames: a configured server's tools are "<server>__<tool>" (ext.ToolName) unless
// its prefix key says otherwise; prefix: "" keeps the server's own names.
func TestServerToolNames(t *testing.T) {
	h := buildHost(t, "x.yaml", `
mcp_servers:
  plain: {command: /nonexistent/a, lazy: true, tools: [{name: ping}]}
  raw: {command: /nonexistent/b, lazy: true, tools: [{name: ping}], prefix: ""}
  custom: {command: /nonexistent/c, lazy: true, tools: [{name: ping}], prefix: "c_"}
`, Options{})
	got := map[string]string{}
	for _, c := range h.Current().Servers {
		tools, err := c.Tools(context.Background())
		if err != nil || len(tools) != 1 {
			t.Fatalf("%s: %v, %v", c.Name(), tools, err)
		}
		got[c.Name()] = tools[0].Name
	}
	want := map[string]string{"plain": "plain__ping", "raw": "ping", "custom": "c_ping"}
	if !maps.Equal(got, want) {
		t.Fatalf("tool names %v, want %v", got, want)
	}
}
