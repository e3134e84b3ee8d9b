package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// testdata/npm/package.json, installed by make test) runs its server scenarios twice: against
// the go-sdk conformance server directly (the baseline) and against `agentpool serve` fronting
// the same server as a stdio upstream with prefix "" and scope: session. With one upstream
// and no prefix the gateway must be transparent: every check that passes directly passes
// through it, and no check is missing.

// conformanceCheck is one check of a scenario, as the suite writes it to checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// conformanceBin returns the suite's command, failing the test when it is not installed.
func conformanceBin(t *testing.T) string { return testserver.NPMBin(t, "conformance") }

// buildEverythingServer builds the go-sdk conformance server (from the module cache, at the
// go-sdk version go.mod requires).
func buildEverythingServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything-server")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the go-sdk conformance server: %v\n%s", err, out)
	}
	return bin
}

// runConformance runs the suite's server scenarios against url and returns every check by
// scenario directory and id ("tools-call-sampling/tools-call-sampling"), with the suite's
// output for the log.
func runConformance(t *testing.T, bin, url string) (map[string]conformanceCheck, string) {
	t.Helper()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "server", "--url", url, "-o", out)
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	text, _ := cmd.CombinedOutput() // failed checks make it exit non-zero; they are compared below
	checks := map[string]conformanceCheck{}
	dirs, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	// Result folders are "server-<scenario>-<timestamp>".
	stamp := regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
		if err != nil {
			continue
		}
		var list []conformanceCheck
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		scenario := strings.TrimPrefix(stamp.ReplaceAllString(d.Name(), ""), "server-")
		for _, c := range list {
			checks[scenario+"/"+c.ID] = c
		}
	}
	return checks, string(text)
}

// passed counts the checks with status SUCCESS.
func passed(checks map[string]conformanceCheck) int {
	n := 0
	for _, c := range checks {
		if c.Status == "SUCCESS" {
			n++
		}
	}
	return n
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startDirect runs the conformance server over stateful streamable HTTP, as the go-sdk's own
// scripts/server-conformance.sh does, and returns its URL once it answers.
func startDirect(t *testing.T, bin string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-http="+addr, "-stateless=false")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	url := "http://" + addr + "/mcp"
	// A liveness bound, not a timing claim.
	testwait.Within(t, 20*time.Second, "the conformance server at "+url+" to answer", func() bool {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	return url
}

// startServe runs `agentpool serve` fronting the conformance server as a session-scoped stdio
// upstream with prefix "" and the server keys in extra (indented as the server's keys), and
// returns its URL; SIGTERM ends it when the test does. Every scenario is a session with its
// own upstream process (the suite never ends its sessions), so the pool's cap on live clients
// is raised above the number of scenarios.
func startServe(t *testing.T, upstream, extra string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "pool:\n  max_clients: 200\nmcp_servers:\n  everything:\n    command: "+upstream+"\n    prefix: \"\"\n    scope: session\n"+extra)
	url, _ := startServeHTTP(t, dir, "--no-default-roots", "--config", cfg)
	return url
}

// TestConformanceThroughServe runs the official MCP conformance suite's server scenarios
// against the go-sdk conformance server directly, through `agentpool serve`, and through serve
// with the upstream in a sandbox that grants it only its own folder to read, and requires the
// same result: every check that passes directly passes through the gateway, sandboxed or not
// (40 of 40 with conformance 0.1.13 and go-sdk v1.8.0). A check that differs is printed with
// its scenario and the suite's error message.
func TestConformanceThroughServe(t *testing.T) {
	t.Parallel()
	suite := conformanceBin(t)
	upstream := buildEverythingServer(t)

	direct, directOut := runConformance(t, suite, startDirect(t, upstream))
	if len(direct) == 0 {
		t.Fatalf("the suite reported no checks against the conformance server directly:\n%s", directOut)
	}
	for _, through := range []struct{ label, extra string }{
		{"agentpool serve", ""},
		{"agentpool serve with a sandboxed upstream", "    sandbox: {read: [" + filepath.Dir(upstream) + "]}\n"},
	} {
		checks, out := runConformance(t, suite, startServe(t, upstream, through.extra))
		t.Logf("conformance: %d of %d checks pass directly, %d of %d through %s",
			passed(direct), len(direct), passed(checks), len(checks), through.label)
		if differ := conformanceDiffer(direct, checks); len(differ) > 0 {
			t.Errorf("%d checks differ through %s:\n  %s\n\nthe suite's output through it:\n%s",
				len(differ), through.label, strings.Join(differ, "\n  "), tail(out, 4000))
		}
	}
	if passed(direct) != len(direct) {
		t.Logf("baseline: not every check passes directly:\n%s", tail(directOut, 2000))
	}
}

// conformanceDiffer lists the checks that pass directly and not through serve, and those
// only one of the runs has, each with its scenario and the suite's error message.
func conformanceDiffer(direct, through map[string]conformanceCheck) []string {
	ids := make([]string, 0, len(direct))
	for id := range direct {
		ids = append(ids, id)
	}
	for id := range through {
		if _, ok := direct[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var differ []string
	for _, id := range ids {
		d, inDirect := direct[id]
		g, inServe := through[id]
		switch {
		case !inServe:
			differ = append(differ, fmt.Sprintf("%s: %s directly, missing through serve", id, d.Status))
		case !inDirect:
			differ = append(differ, fmt.Sprintf("%s: only through serve: %s %s", id, g.Status, g.ErrorMessage))
		case d.Status == "SUCCESS" && g.Status != "SUCCESS":
			differ = append(differ, fmt.Sprintf("%s: %s through serve (SUCCESS directly): %s", id, g.Status, g.ErrorMessage))
		}
	}
	return differ
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
