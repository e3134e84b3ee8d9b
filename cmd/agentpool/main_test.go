package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentpool": func() { os.Exit(run()) },
	})
}

// TestScripts runs the CLI transcripts in testdata/script: each .txtar is one scenario.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// Keep user roots (~/.agents/skills, ~/.claude/skills) out of the tests.
			env.Setenv("HOME", env.WorkDir+"/home")
			return nil
		},
	})
}
