package agentpool_test

// This file checks that the imports among this module's packages point one way, as DESIGN.md
// ("Dependencies point one way") draws them, the way the standard library's go/build/deps_test.go
// checks its own: the allowed edges are data, and an arrow that runs the wrong way fails
// `go test`, not a review.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is this module's path; packages are named relative to it below ("." is the root).
const module = "github.com/agentpool/agentpool"

// allowedImports lists, for every package of this module, the packages of this module it may
// import. A package may also import whatever those may import, transitively ("anything below
// them"): the table only has to name the nearest layers. Packages that do not exist yet are here
// already, so that they start out in the right place. A new package must be added here, or the
// test fails; only non-test imports are checked.
var allowedImports = map[string][]string{
	// The CLI: thin commands over the host, the server, agents and views (and anything below).
	// agent/openai: `chat` and `acp` run an agent on an OpenAI-compatible endpoint, and the CLI
	// is the composition root that picks a model adapter (agent itself never imports one);
	// agent/acp: `acp` serves it to editors.
	// bearer: `serve` verifies OAuth bearer tokens with it and hands gateway its Verify.
	// internal/connlimit: serve's listener cap. internal/writestall: serve's bound on a stalled
	// write to a client. status: serve's status page. sandbox: the
	// entry point sandboxed servers start through (sandbox.Main). internal/gctune: serve's
	// garbage collector headroom. internal/proctune: serve's processors.
	"cmd/agentpool": {"host", "gateway", "agent", "agent/acp", "agent/anthropic", "agent/chat", "agent/openai", "view", "config", "examples", "trust", "bearer", "decl", "internal/connlimit", "internal/writestall", "status", "sandbox", "internal/termtext", "internal/gctune", "internal/proctune", "internal/rawio"},

	// The operators' page of a running host: what the host knows (its servers, skills, plugins)
	// beside what the gateway serves (its view and sessions). It reads both, so it sits where
	// they meet, under the CLI; neither imports it, and the gateway still never sees the host.
	"status": {"host", "gateway", "view", "ext", "mcpcap", "plugin", "skill", "pin", "decl", "sandbox"},

	// The composition root at run time; nobody below imports it. agent: a session the host
	// opened makes its agents (Session.NewAgent), so that no agent runs in a session nobody
	// opened; agent imports no SDK and sees the host only through the registry.
	"host": {"config", "skill", "command", "mcpcap", "connpool", "ext", "trust", "decl", "pin", "manifest", "agent"},

	// Consumers of views: never host, config or a capability package.
	"gateway": {"view", "ext", "frontmatter", "internal/wire", "internal/httpbuf", "gateway/internal/mcpconv", "gateway/internal/stdioframe", "gateway/internal/rerun", "gateway/internal/heldbody", "gateway/internal/lane", "exposure"},
	// exposure: tool exposure modes (all, search, auto) over a view, with the shared search
	// index; the gateway, agents and config (for its keys) use it.
	"exposure": {"view", "ext", "toolsearch"},
	// gateway/internal/mcpconv: the view's and ext's types as the go-sdk's.
	"gateway/internal/mcpconv": {"view", "ext"},
	"agent":                    {"view", "ext", "exposure"},
	"view":                     {"ext", "hiddentext"},

	// gateway/internal/stdioframe: the stdio stream below the go-sdk.
	"gateway/internal/stdioframe": {"internal/wire"},
	// gateway/internal/rerun: a function run on a goroutine only while asked to.
	"gateway/internal/rerun": {},
	// gateway/internal/heldbody: a request body read whole before its handler.
	"gateway/internal/heldbody": {},
	// gateway/internal/lane: keep-alive POSTs served off net/http's per-request path (a strict
	// HTTP/1.1 head parser and its loop); the standard library only.
	"gateway/internal/lane": {},

	// Adapters from agent to LLM SDKs: each imports its SDK, agent, view and ext, so that agent
	// itself never pulls in an SDK (TestAgentImportsNoSDK).
	"agent/openai":    {"agent", "agent/internal/endpoint", "view", "ext"},
	"agent/anthropic": {"agent", "agent/internal/endpoint", "view", "ext"},
	"agent/eino":      {"agent", "view", "ext"},
	// The ACP server: agent sessions for editors over acp-go-sdk. Like gateway, it sees
	// capabilities through view and ext only; what it needs of the host (opening and closing a
	// session, adding the editor's MCP servers) is handed to it as functions.
	"agent/acp": {"agent", "view", "ext", "cmdline"},
	// The terminal chat: a conversation with an agent (lines, turns, printing); like agent/acp
	// it sees the agent, views and ext only, and the CLI hands it what it runs on.
	"agent/chat": {"agent", "view", "ext", "cmdline", "internal/termtext"},

	// Configuration: the file format. It imports the kinds' packages only for their config
	// structs (each kind owns its keys and validation); building is host's. DESIGN.md's
	// dependency block does not name config; this is the rule it follows.
	"config": {"skill", "command", "mcpcap", "plugin", "frontmatter", "internal/regfile", "decl", "exposure"},

	// Capabilities.
	"mcpcap":  {"connpool", "ext", "decl", "internal/wire", "hiddentext"},
	"skill":   {"ext", "fswatch", "frontmatter", "cmdline", "decl", "hiddentext"},
	"command": {"ext", "fswatch", "frontmatter", "cmdline"},

	// Leaves: nothing of ours (connpool: go-sdk and internal/wire only, and golang.org/x/oauth2, the go-sdk's own
	// dependency, whose Token and TokenSource are in the go-sdk's auth.OAuthHandler; fswatch: fsnotify only; frontmatter:
	// go-yaml only; cmdline: the standard library only) — except ext, which reads skill://
	// files through internal/regfile (a leaf of the standard library only), so that a named
	// pipe in a skill folder cannot block a read, and connpool, whose ServerConfig is a
	// server's declaration (decl.Server) with its name.
	"ext":         {"internal/regfile"},
	"ext/exttest": {"ext"}, // a test helper library, like testing/fstest
	"connpool":    {"decl", "internal/wire", "sandbox", "connpool/internal/httpcall", "internal/rawio"},
	"fswatch":     nil,
	"frontmatter": nil,
	"cmdline":     nil,
	"trust":       {"decl"}, // the user's trust decisions
	// sandbox: confines a stdio server (Landlock, namespaces) through a re-executed entry
	// point; connpool starts sandboxed servers with it (the standard library and x/sys only).
	"sandbox": {"decl", "sandbox/launch"},
	// sandbox/launch: the entry point that applies a sandbox and executes the server, shared by
	// the launcher and sandbox.Main (the standard library's light packages and x/sys only: its
	// program's initialisation is part of every sandboxed start).
	"sandbox/launch": nil,
	// The sandbox launcher: the entry point alone.
	"cmd/agentpool-sandbox": {"sandbox/launch"},
	// pin: pinned definitions (canonical digests of what a server lists, the pin store, drift);
	// mcpcap gets a Guard through an interface of its own, injected by host.
	"pin": {"ext", "decl"},
	// manifest: what each server listed, cached across runs per declaration digest; mcpcap
	// gets it through an interface of its own, injected by host.
	"manifest": {"ext"},
	// decl: one MCP server's declaration (every key a user or a project can write) and its
	// validation, standard library only. It is a leaf so that everything that carries a
	// declaration (config, connpool, mcpcap, skill, plugin, trust, host) shares the one type:
	// a copy per package is a copy that trust's digest can miss.
	"decl": nil,
	// bearer: verifies OAuth access tokens (JWTs) for serve as a protected resource; go-sdk
	// auth, go-jose and the standard library only. gateway gets its Verify as a function.
	"bearer": nil,
	// plugin: Claude Code and Codex plugin folders and marketplaces, read (the standard library,
	// internal/regfile and a TOML reader only); the host turns what it finds into skills,
	// commands and servers.
	"plugin": {"internal/regfile", "decl"},
	// regfile: opens only regular files, non-blocking, and reads them under a cap (standard
	// library only); every package that reads a file from outside uses it.
	"internal/regfile": nil,
	// toolsearch: ranks a view's tools and skills against a request in words (standard library
	// only); the gateway's search tool builds on it.
	"toolsearch": nil,
	// hiddentext: finds and removes invisible and deceptive text in descriptions (standard
	// library only); the view applies it to everything that reaches a model.
	"hiddentext": nil,
	// wire: MCP's wire formats read and written by hand (JSON-RPC messages, server-sent
	// events, stdio framing, the go-sdk's method table and error codes), one copy for the
	// pool, the capability and the server, each checked against the go-sdk (the standard
	// library and the go-sdk's jsonrpc package only).
	"internal/wire": nil,
	// A cap on an HTTP server's open connections that keeps its probes answered (standard
	// library only).
	"internal/connlimit": {"internal/httpbuf"},
	// A listener whose connections fail a write that stalls, so no client that stops reading
	// holds a connection (standard library only).
	"internal/writestall": nil,
	// A ResponseWriter keeping a whole response in memory (standard library only).
	"internal/httpbuf": nil,

	// The HTTP/1.1 transport of the calls connpool passes through (standard library only).
	"connpool/internal/httpcall": {"internal/rawio"},

	// Bundled content and test helpers, as they are today.
	"examples":            nil,
	"internal/testserver": nil,
	// Waiting in tests for other processes, files and sockets (standard library only).
	"internal/testwait": nil,
	// A fake OAuth-protected MCP server for tests (go-sdk only), on a TCP port or in memory.
	"internal/oauthtest": {"internal/authredirect", "internal/memnet"},
	// A network in memory (net.Pipe) for tests in a testing/synctest bubble, which cannot
	// wait on sockets (standard library only).
	"internal/memnet": nil,
	// Checks that a net.Conn wrapper keeps the raw connection's behaviour, for tests
	// (standard library only).
	"internal/conntest": nil,
	// The user's part of an authorization code grant that needs no user (go-sdk only).
	"internal/authredirect": nil,
	// A real OpenID provider (testdata/oidc, oidc-provider from npm) for tests (go-sdk and x/oauth2 only).
	"internal/oidctest": nil,
	// The conformance suite's client: an mcp_servers entry through mcpcap and connpool.
	"internal/conformanceclient":            {"mcpcap", "connpool", "ext", "internal/authredirect", "decl"},
	"internal/testserver/cmd/faultserver":   nil,
	"internal/testserver/cmd/driftserver":   nil,
	"internal/testserver/cmd/hostileserver": nil,
	// The adapters' shared test fixture: a real view over mcpcap, imported by their tests only.
	"agent/internal/adaptertest": {"agent", "ext", "mcpcap"},
	// Text from outside made safe to print on a terminal (standard library only).
	"internal/termtext": nil,
	// internal/gctune: the garbage collector's headroom of a long-running server.
	"internal/gctune": nil,
	// internal/proctune: the processors of a long-running server, from the CPU it uses.
	"internal/proctune":  nil,
	"internal/threadcpu": nil,
	// internal/rawio: non-blocking sockets and pipes read and written without the scheduler's
	// system-call hand-off (standard library only).
	"internal/rawio": nil,
	// What the model adapters share about the endpoint they call (standard library only).
	"agent/internal/endpoint": nil,

	// A runnable program on the library, shown in full in README.md: one turn of an agent.
	"examples/library": {"host", "agent", "agent/openai", "config"},

	// The module root holds only tests, such as this one.
	".": nil,
}

// pkgImports is one package of this module and the packages of this module it imports, both
// relative to the module ("." for its root).
type pkgImports struct {
	Path    string
	Imports []string
}

// closure returns, for every package of rules, every package it may import: its allowed
// imports and, transitively, theirs.
func closure(rules map[string][]string) map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(rules))
	for pkg := range rules {
		seen := map[string]bool{}
		stack := slices.Clone(rules[pkg])
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[p] {
				continue
			}
			seen[p] = true
			stack = append(stack, rules[p]...)
		}
		out[pkg] = seen
	}
	return out
}

// checkRules reports what is wrong with the table itself: an edge to a package the table does
// not list, and a cycle (a package allowed to import itself through others), which would let
// imports run both ways.
func checkRules(rules map[string][]string) []string {
	var bad []string
	for pkg, allowed := range rules {
		for _, a := range allowed {
			if _, ok := rules[a]; !ok {
				bad = append(bad, fmt.Sprintf("rule %s → %s: %s has no rule of its own", pkg, a, a))
			}
		}
	}
	for pkg, below := range closure(rules) {
		if below[pkg] {
			bad = append(bad, fmt.Sprintf("rule cycle: %s may import itself through the rules", pkg))
		}
	}
	sort.Strings(bad)
	return bad
}

// checkImports reports every import of pkgs that rules do not allow, and every package (importer
// or imported) that rules do not know.
func checkImports(rules map[string][]string, pkgs []pkgImports) []string {
	below := closure(rules)
	var bad []string
	for _, p := range pkgs {
		if _, ok := rules[p.Path]; !ok {
			bad = append(bad, fmt.Sprintf("%s: unknown package; add it to allowedImports in deps_test.go", p.Path))
			continue
		}
		for _, imp := range p.Imports {
			if _, ok := rules[imp]; !ok {
				bad = append(bad, fmt.Sprintf("%s → %s: unknown package; add it to allowedImports in deps_test.go", p.Path, imp))
				continue
			}
			if !below[p.Path][imp] {
				bad = append(bad, fmt.Sprintf("%s → %s: not allowed (%s may import %s)", p.Path, imp, p.Path, describe(below[p.Path])))
			}
		}
	}
	sort.Strings(bad)
	return slices.Compact(bad)
}

// describe lists a set of packages for a message.
func describe(set map[string]bool) string {
	if len(set) == 0 {
		return "nothing of this module"
	}
	names := make([]string, 0, len(set))
	for p := range set {
		names = append(names, p)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// relative names an import path relative to the module: "." for the root, "" when it is not
// a package of this module.
func relative(path string) string {
	switch {
	case path == module:
		return "."
	case strings.HasPrefix(path, module+"/"):
		return strings.TrimPrefix(path, module+"/")
	}
	return ""
}

// listImports runs `go list` for every package of the module as built for goos and returns
// each package's non-test imports of this module.
func listImports(t *testing.T, goos string) []pkgImports {
	t.Helper()
	gocmd, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("go command not found: %v", err)
	}
	// -e: a dependency missing from the module cache for another GOOS is an error of that
	// package's dependencies, not of its import list; errors of our own packages fail below.
	cmd := exec.Command(gocmd, "list", "-e", "-json=ImportPath,Imports,Error", "./...")
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GOOS=%s go list: %v\n%s", goos, err, stderr.Bytes())
	}
	var pkgs []pkgImports
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Error      *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("GOOS=%s go list output: %v", goos, err)
		}
		if p.Error != nil {
			t.Errorf("GOOS=%s go list %s: %s", goos, p.ImportPath, p.Error.Err)
		}
		pi := pkgImports{Path: relative(p.ImportPath)}
		if pi.Path == "" {
			t.Fatalf("go list ./... listed %s, outside module %s", p.ImportPath, module)
		}
		for _, imp := range p.Imports {
			if r := relative(imp); r != "" {
				pi.Imports = append(pi.Imports, r)
			}
		}
		pkgs = append(pkgs, pi)
	}
	if len(pkgs) == 0 {
		t.Fatalf("GOOS=%s go list ./... listed no package", goos)
	}
	return pkgs
}

// TestImportRules checks every package's imports against allowedImports, for the operating
// systems whose files differ (build-tagged files may import differently).
func TestImportRules(t *testing.T) {
	if bad := checkRules(allowedImports); len(bad) > 0 {
		t.Fatalf("allowedImports is inconsistent:\n%s", strings.Join(bad, "\n"))
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if bad := checkImports(allowedImports, listImports(t, goos)); len(bad) > 0 {
			t.Errorf("GOOS=%s: imports that break the dependency rules of DESIGN.md:\n%s", goos, strings.Join(bad, "\n"))
		}
	}
}

// TestAgentImportsNoSDK checks that no LLM SDK is among agent's dependencies: the adapters,
// and only they, import one.
func TestAgentImportsNoSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/agent").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, sdk := range []string{"github.com/openai/", "github.com/anthropics/", "github.com/cloudwego/"} {
		if strings.Contains(string(out), sdk) {
			t.Errorf("agent depends on %s…: only its adapter sub-packages may", sdk)
		}
	}
}

// TestImportRulesCatchBrokenEdges is the test of the test: edges that run the wrong way, and
// packages the table does not know, must be reported by the checker.
func TestImportRulesCatchBrokenEdges(t *testing.T) {
	tests := []struct {
		name string
		pkgs []pkgImports
		want []string // one part of a message per report, in sorted order; nil for none
	}{
		{"today's shape", []pkgImports{
			{"cmd/agentpool", []string{"config", "command", "skill", "ext", "cmdline"}},
			{"config", []string{"skill", "command", "mcpcap", "connpool", "ext"}},
			{"skill", []string{"ext", "fswatch", "frontmatter", "cmdline"}},
			{"mcpcap", []string{"connpool", "ext"}},
			{"gateway", []string{"view", "ext"}},
			{"ext", nil},
		}, nil},
		{"a capability imports another's client", []pkgImports{{"skill", []string{"ext", "mcpcap"}}},
			[]string{"skill → mcpcap: not allowed"}},
		{"the server reads config", []pkgImports{{"gateway", []string{"view", "config"}}},
			[]string{"gateway → config: not allowed"}},
		{"the core imports a capability", []pkgImports{{"ext", []string{"skill"}}},
			[]string{"ext → skill: not allowed (ext may import internal/regfile)"}},
		{"a view reaches past ext", []pkgImports{{"view", []string{"ext", "fswatch"}}},
			[]string{"view → fswatch: not allowed"}},
		{"a leaf imports a leaf", []pkgImports{{"fswatch", []string{"ext"}}},
			[]string{"fswatch → ext: not allowed"}},
		{"something imports the host", []pkgImports{{"config", []string{"host"}}, {"gateway", []string{"host"}}},
			[]string{"config → host: not allowed", "gateway → host: not allowed"}},
		{"an unknown package", []pkgImports{{"util", []string{"ext"}}},
			[]string{"util: unknown package"}},
		{"an import of an unknown package", []pkgImports{{"skill", []string{"helpers"}}},
			[]string{"skill → helpers: unknown package"}},
	}
	for _, tt := range tests {
		got := checkImports(allowedImports, tt.pkgs)
		if len(got) != len(tt.want) {
			t.Errorf("%s: reports %q, want %d", tt.name, got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: report %q, want one containing %q", tt.name, got[i], w)
			}
		}
	}

	// A table that lets imports run both ways, or names a package it has no rule for.
	for name, rules := range map[string]map[string][]string{
		"cycle":        {"ext": {"skill"}, "skill": {"ext"}},
		"missing rule": {"skill": {"ext"}},
	} {
		if bad := checkRules(rules); len(bad) == 0 {
			t.Errorf("checkRules accepted the %s table %v", name, rules)
		}
	}
}
