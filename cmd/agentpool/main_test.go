package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
)

// testParallel is how many of the package's parallel tests run at once unless -test.parallel
// says otherwise (at least GOMAXPROCS, go test's default): the tests mostly wait on the
// processes they start and on I/O, so more of them at once than there are CPUs keeps the
// CPUs busy.
const testParallel = 4

func TestMain(m *testing.M) {
	sandbox.Main() // this binary starts the sandboxed servers of the agentpool it runs as
	// No test may read or write the real user's configuration (their config, their trust
	// decisions) or cache: the test process and every process it starts see a config folder
	// and a cache folder that do not exist, unless a test gives its own. The processes testscript re-executes this binary
	// as (the agentpool command) keep the folder their parent gave them.
	if os.Getenv("AGENTPOOL_TEST_PARENT") == "" {
		os.Setenv("AGENTPOOL_TEST_PARENT", "1")
		os.Setenv("XDG_CONFIG_HOME", "/nonexistent/agentpool-test-config")
		os.Setenv("XDG_CACHE_HOME", "/nonexistent/agentpool-test-cache")
	}
	if filepath.Base(os.Args[0]) != "agentpool" { // the test binary, not a script's command
		// Sandboxed servers start as an installed agentpool's do. A script's command (its
		// environment is the script's) starts them by re-executing itself, the fallback.
		testserver.UseSandboxLauncher()
		flag.Parse()
		if !flagGiven("test.parallel") {
			flag.Set("test.parallel", fmt.Sprint(max(testParallel, runtime.GOMAXPROCS(0))))
		}
	}
	testscript.Main(m, map[string]func(){
		"agentpool": func() { os.Exit(run()) },
	})
}

// TestScripts runs the CLI transcripts in testdata/script: each .txtar is one scenario.
// Scripts get $FAULTSERVER (the Go fault-injection MCP server) and $EVERYTHING (the npm
// reference server, installed by make test) in their environment.
func TestScripts(t *testing.T) {
	t.Parallel()
	fault := testserver.Build(t)
	everything := everythingServer(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// Keep user roots (~/.agents/skills, ~/.claude/skills) out of the tests.
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/xdg")
			env.Setenv("XDG_CACHE_HOME", env.WorkDir+"/cache")
			env.Setenv("FAULTSERVER", fault)
			env.Setenv("EVERYTHING", everything)
			return nil
		},
	})
}

// everythingServer returns the path of @modelcontextprotocol/server-everything, failing the test
// when it is not installed: `make test` installs it, and a missing fixture must not pass quietly.
func everythingServer(t *testing.T) string { return testserver.NPMBin(t, "mcp-server-everything") }

// npmStartup is the startup_timeout of the npm reference servers in a test that needs each of
// them up (not degraded) for its first listing. Node takes longer than the default 30 s to
// start a handful of them on a loaded 2-core machine (the test package and the others running
// beside it): the bound is only for a server that never answers.
const npmStartup = "startup_timeout: 5m"

// flagGiven reports whether the command line set the flag name.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
