package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// malformedCase is one directory of testdata/malformed: a self-contained config (agentpool.yaml,
// and the JSON files it imports by relative path) that Load refuses, and in its file want a Go
// regexp the error must match, naming the file, the line and the key. Other packages' tests
// (a live reload written over a running server's config) reuse the directories as they are:
// glob testdata/malformed/*/want.
type malformedCase struct {
	name, dir string
	want      *regexp.Regexp
}

func malformedCases(tb testing.TB) []malformedCase {
	tb.Helper()
	wants, err := filepath.Glob(filepath.Join("testdata", "malformed", "*", "want"))
	if err != nil || len(wants) < 25 {
		tb.Fatalf("testdata/malformed/*/want: %d cases (want at least 25), err %v", len(wants), err)
	}
	var out []malformedCase
	for _, w := range wants {
		data, err := os.ReadFile(w)
		if err != nil {
			tb.Fatal(err)
		}
		re, err := regexp.Compile(strings.TrimSpace(string(data)))
		if err != nil {
			tb.Fatalf("%s: %v", w, err)
		}
		dir := filepath.Dir(w)
		out = append(out, malformedCase{name: filepath.Base(dir), dir: dir, want: re})
	}
	return out
}

// Every malformed case is refused by Load with an error naming the file, the line and the key;
// at least 8 of them are errors inside an imported JSON file, named as that file.
func TestMalformedCases(t *testing.T) {
	inJSON := 0
	for _, c := range malformedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			abs, err := filepath.Abs(filepath.Join(c.dir, "agentpool.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(abs)
			if err == nil {
				t.Fatalf("no error (servers %v, warnings %v)", cfg.MCPServers.Names(), cfg.Warnings)
			}
			msg := err.Error()
			if !c.want.MatchString(msg) {
				t.Errorf("error does not match %q:\n%s", c.want, msg)
			}
			// The error names the file by its whole path: the reader can open it.
			file := "agentpool.yaml"
			if strings.HasPrefix(c.want.String(), `mcp\.json`) {
				file = "mcp.json"
				inJSON++
			}
			if !strings.Contains(msg, filepath.Join(filepath.Dir(abs), file)+":") {
				t.Errorf("error does not name %s by its path:\n%s", file, msg)
			}
		})
	}
	if inJSON < 8 {
		t.Errorf("%d cases of errors inside an imported JSON file, want at least 8", inJSON)
	}
}
