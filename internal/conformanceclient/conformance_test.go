package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentpool/agentpool/internal/testserver"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// testdata/npm/package.json, installed by make test) runs every client scenario
// (`conformance client --suite all`) against this package's program, which connects through
// agentpool's own upstream code path (mcpcap over connpool, with the auth: settings each
// scenario implies). Every check must pass except those of expectedFailures, which must fail,
// and for the reason given; the client's logs (debug level) must show no token or secret.

// expectedFailures are the scenarios agentpool fails on purpose, with the text their client's
// log must show (the reason) and why.
var expectedFailures = map[string]struct{ logShows, why string }{
	"auth/metadata-var2": {`does not match issuer URL`, "the suite's authorization server, discovered as <origin>/tenant1, " +
		"answers with the issuer <origin>: RFC 8414 §3.3 says a client must reject metadata whose issuer is not the one it was discovered under"},
	"auth/metadata-var3": {`does not match issuer URL`, "as metadata-var2 (OpenID Connect discovery under /tenant1, issuer <origin>)"},
}

// secretsInScenarios are the tokens and secrets the suite's servers issue or hand out: none
// may appear in the client's logs (it logs at debug level).
var secretsInScenarios = []string{"test-token-", "cc-token-", "conformance-test-secret", "pre-registered-secret", "test-client-secret", "PRIVATE KEY"}

type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

type scenarioResult struct {
	checks []check
	log    string // the client's stdout and stderr
}

// conformanceBin returns the suite's command; the test fails (never skips) without it.
func conformanceBin(t *testing.T) string { return testserver.NPMBin(t, "conformance") }

// clientScenarios returns the suite's client scenarios, as `conformance list` names them.
func clientScenarios(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command(bin, "list").Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	_, client, ok := strings.Cut(string(out), "Client scenarios")
	if !ok {
		t.Fatalf("conformance list printed no client scenarios:\n%s", out)
	}
	var names []string
	for _, line := range strings.Split(client, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			names = append(names, name)
		}
	}
	return names
}

// runSuite runs every client scenario against the program at client and returns each
// scenario's checks and log.
func runSuite(t *testing.T, bin, client string) (map[string]scenarioResult, string) {
	t.Helper()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "client", "--command", client, "--suite", "all", "-o", out)
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	text, _ := cmd.CombinedOutput() // failed checks make it exit non-zero; they are compared below
	results := map[string]scenarioResult{}
	// Result folders are "<scenario>-<timestamp>", auth scenarios under auth/.
	stamp := regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		dir := filepath.Dir(path)
		rel, _ := filepath.Rel(out, dir)
		var r scenarioResult
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &r.checks); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, f := range []string{"stdout.txt", "stderr.txt"} {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			r.log += string(b)
		}
		results[stamp.ReplaceAllString(filepath.ToSlash(rel), "")] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return results, string(text)
}

func TestConformanceClientSuite(t *testing.T) {
	bin := conformanceBin(t)
	client := filepath.Join(t.TempDir(), "conformanceclient")
	if out, err := exec.Command("go", "build", "-o", client, ".").CombinedOutput(); err != nil {
		t.Fatalf("build the conformance client: %v\n%s", err, out)
	}
	// The go-sdk's own conformance client (v1.8.0 conformance/everything-client, built from the
	// module cache), run in the same suite for its figures beside ours: its baseline.yml lists
	// client-credentials-basic and -jwt among its failures, and it fails metadata-var2 and -var3
	// as agentpool does.
	goClient := filepath.Join(t.TempDir(), "everything-client")
	if out, err := exec.Command("go", "build", "-o", goClient, "github.com/modelcontextprotocol/go-sdk/conformance/everything-client").CombinedOutput(); err != nil {
		t.Fatalf("build the go-sdk conformance client: %v\n%s", err, out)
	}
	scenarios := clientScenarios(t, bin)
	goResults, _ := runSuite(t, bin, goClient)
	goPassed, goTotal := count(goResults)
	results, text := runSuite(t, bin, client)
	if t.Failed() {
		return
	}
	passed, total := 0, 0
	var failedScenarios []string
	for _, name := range scenarios {
		r, ok := results[name]
		if !ok {
			t.Errorf("%s: no result (the suite's output:\n%s)", name, text)
			continue
		}
		var bad []string
		for _, c := range r.checks {
			switch c.Status {
			case "SUCCESS":
				passed++
				total++
			case "FAILURE":
				total++
				bad = append(bad, fmt.Sprintf("%s: %s %s", c.ID, c.Description, c.ErrorMessage))
			case "WARNING":
				// Neither a pass nor a failure in the suite's count: the one seen is sse-retry's
				// timing ("reconnected slightly late … acceptable"), which depends on the load
				// of the machine running 23 scenarios at once. Shown, not failed.
				t.Logf("%s: warning %s: %s %s", name, c.ID, c.Description, c.ErrorMessage)
			}
		}
		for _, s := range secretsInScenarios {
			if strings.Contains(r.log, s) {
				t.Errorf("%s: the client's log shows a token or secret (%q…)", name, s)
			}
		}
		exp, expected := expectedFailures[name]
		switch {
		case expected && len(bad) == 0:
			t.Errorf("%s passes now: remove it from expectedFailures", name)
		case expected && !strings.Contains(r.log, exp.logShows):
			t.Errorf("%s fails, but its log does not show the expected reason %q:\n%s", name, exp.logShows, r.log)
		case expected:
			failedScenarios = append(failedScenarios, name)
		case len(bad) > 0:
			t.Errorf("%s: %d checks fail:\n  %s\nclient log:\n%s", name, len(bad), strings.Join(bad, "\n  "), r.log)
		}
	}
	for name := range results {
		if !slices.Contains(scenarios, name) {
			t.Errorf("result for %s, which conformance list does not name", name)
		}
	}
	sort.Strings(failedScenarios)
	t.Logf("conformance client --suite all (%d scenarios): agentpool passes %d of %d checks; the go-sdk's own client %d of %d "+
		"(it asks for the 2026-07-28 draft, whose server/discover request adds checks; agentpool asks for 2025-11-25)", len(scenarios), passed, total, goPassed, goTotal)
	for _, name := range failedScenarios {
		t.Logf("expected failure %s: %s", name, expectedFailures[name].why)
	}
}

// count returns the checks that passed and those that passed or failed, as the suite counts.
func count(results map[string]scenarioResult) (passed, total int) {
	for _, r := range results {
		for _, c := range r.checks {
			switch c.Status {
			case "SUCCESS":
				passed++
				total++
			case "FAILURE":
				total++
			}
		}
	}
	return passed, total
}
