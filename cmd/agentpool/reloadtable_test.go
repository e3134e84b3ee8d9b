package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// malformedCase is one case of config/testdata/malformed/<name>/: its files and the regexp
// its error must match (file, line and key).
type malformedCase struct {
	name  string
	files map[string][]byte // file name → content; agentpool.yaml among them
	want  *regexp.Regexp
}

// malformedCases reads the shared table of malformed configs (the config package's
// TestMalformedCases checks each against the loader).
func malformedCases(t *testing.T) []malformedCase {
	t.Helper()
	wants, err := filepath.Glob(filepath.Join("..", "..", "config", "testdata", "malformed", "*", "want"))
	if err != nil || len(wants) < 25 {
		t.Fatalf("the malformed config table: %d cases (%v), want at least 25", len(wants), err)
	}
	var cases []malformedCase
	for _, w := range wants {
		dir := filepath.Dir(w)
		c := malformedCase{name: filepath.Base(dir), files: map[string][]byte{}}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() == "want" || !e.Type().IsRegular() {
				continue // a case's directory entries (import of a directory) are made below
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			c.files[e.Name()] = data
		}
		re, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		c.want = regexp.MustCompile(strings.TrimSpace(string(re)))
		cases = append(cases, c)
	}
	return cases
}

// TestServeReloadRefusesMalformedTable writes every config of the shared malformed table
// over the live config of a running serve, with a client connected: each is refused with the
// error its case names (file, line and key) logged, and nothing changes: both upstream
// processes keep their pids and the session keeps calling. A valid config written last is
// applied, so the refusals were reloads tried, not edits unseen.
func TestServeReloadRefusesMalformedTable(t *testing.T) {
	t.Parallel()
	cases := malformedCases(t)
	bin := testserver.Build(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	valid := "mcp_servers:\n  one: {command: " + bin + "}\n  two: {command: " + bin + ", scope: session}\n"
	writeFile(t, path, valid)
	_, url, log := startReloadServe(t, path)

	cs, changed := connectWatchingTools(t, url)
	one, two := pidOf(t, cs, "one__pid"), pidOf(t, cs, "two__pid")

	for _, c := range cases {
		from := len(log.String())
		// The case's other files first (the JSON it imports), its agentpool.yaml last and by
		// rename, as an editor saves: the reload that matters reads them all.
		for name, data := range c.files {
			if name != "agentpool.yaml" {
				writeFile(t, filepath.Join(dir, name), string(data))
			}
		}
		if c.name == "import-directory" {
			_ = os.MkdirAll(filepath.Join(dir, "servers"), 0o755)
		}
		replaceFile(t, path, string(c.files["agentpool.yaml"]))
		// The log's text format quotes the error: its quotes come escaped.
		logged := func() string { return strings.ReplaceAll(log.String()[from:], `\"`, `"`) }
		func() {
			seen := false
			defer func() {
				if !seen {
					t.Logf("%s: serve said:\n%s", c.name, log.String()[from:])
				}
			}()
			testwait.Within(t, reloadWait, fmt.Sprintf("%s: an error matching %q logged", c.name, c.want), func() bool { return c.want.MatchString(logged()) })
			seen = true
		}()
		if got := log.String()[from:]; !strings.Contains(got, "config reload refused") {
			t.Errorf("%s: the error was not logged as a refused reload:\n%s", c.name, got)
		}
		if p1, p2 := pidOf(t, cs, "one__pid"), pidOf(t, cs, "two__pid"); p1 != one || p2 != two {
			t.Fatalf("%s: the upstream processes changed: pids %d %d, were %d %d", c.name, p1, p2, one, two)
		}
		// The status page shows the refusal with its error (HTML-escaped, as the page
		// escapes every text).
		page := html.UnescapeString(httpGet(t, strings.TrimSuffix(url, "/mcp")+"/"))
		if !strings.Contains(page, "refused") || !c.want.MatchString(page) {
			t.Fatalf("%s: the status page does not show the refused reload and its error %q:\n%s", c.name, c.want, page)
		}
	}
	metrics := httpGet(t, strings.TrimSuffix(url, "/mcp")+"/metrics")
	if !regexp.MustCompile(`agentpool_config_reloads_total\{result="error"\} [1-9]`).MatchString(metrics) {
		t.Errorf("/metrics counts no refused reload:\n%s", grepLines(metrics, "agentpool_config_reloads"))
	}
	select {
	case <-changed:
		t.Error("a refused config changed the session's tools (tools/list_changed)")
	default:
	}

	// A valid edit is still applied after all the refusals.
	replaceFile(t, path, valid+"  three: {command: "+bin+"}\n")
	waitReload(t, "three__pid listed after the refusals", func() bool {
		tools, err := cs.ListTools(context.Background(), nil)
		return err == nil && slices.ContainsFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == "three__pid" })
	})
}

// connectWatchingTools connects a go-sdk client to url, closed at the test's end, and returns
// its session and a channel that gets a value for each tools/list_changed it receives.
func connectWatchingTools(t *testing.T, url string) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, changed
}

// httpGet returns the body of a GET of url, failing the test on anything but 200.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return string(body)
}

// grepLines returns the lines of text that contain sub.
func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestServeReloadFollowsImport: an edit of a JSON file the config imports (import:) is a
// reload as an edit of the YAML is: a server added to the .mcp.json is served, and the
// session is told.
func TestServeReloadFollowsImport(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	mcpJSON := filepath.Join(dir, "mcp.json")
	writeFile(t, mcpJSON, `{"mcpServers": {"a": {"command": "`+bin+`"}}}`)
	writeFile(t, path, "import: [mcp.json]\n")
	_, url, log := startReloadServe(t, path)

	cs, changed := connectWatchingTools(t, url)
	a := pidOf(t, cs, "a__pid")

	replaceFile(t, mcpJSON, `{"mcpServers": {"a": {"command": "`+bin+`"}, "b": {"command": "`+bin+`"}}}`)
	select {
	case <-changed:
	case <-time.After(reloadWait):
		t.Fatalf("no tools/list_changed within %s after the imported file changed; serve said:\n%s", reloadWait, log.String())
	}
	waitReload(t, "b__pid listed", func() bool {
		tools, err := cs.ListTools(context.Background(), nil)
		return err == nil && slices.ContainsFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == "b__pid" })
	})
	if got := pidOf(t, cs, "a__pid"); got != a {
		t.Errorf("unchanged imported server a restarted: pid %d, was %d", got, a)
	}
}

// TestServeReloadUserConfigImportMissing: serve follows the user's own config (found, not
// named by --config), whose removal means no config. An edit of it that imports a file that
// does not exist is a refused reload like any error, not taken for the config's removal: the
// running servers stay.
func TestServeReloadUserConfigImportMissing(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	xdg, work := filepath.Join(dir, "xdg"), filepath.Join(dir, "work")
	path := filepath.Join(xdg, "agentpool", "agentpool.yaml")
	writeFile(t, path, "mcp_servers:\n  a: {command: "+bin+"}\n")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	_, url, log := startServeIn(t, work, []string{"HOME=" + filepath.Join(dir, "home"), "XDG_CONFIG_HOME=" + xdg},
		"--log-level", "info", "serve", "--http", "127.0.0.1:0")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	a := pidOf(t, cs, "a__pid")

	from := len(log.String())
	replaceFile(t, path, "mcp_servers:\n  a: {command: "+bin+"}\nimport: [missing.json]\n")
	waitReload(t, "a reload tried", func() bool {
		got := log.String()[from:]
		return strings.Contains(got, "config reload refused") || strings.Contains(got, "config reloaded")
	})
	if got := log.String()[from:]; !strings.Contains(got, "config reload refused") || !strings.Contains(got, "missing.json") {
		t.Errorf("the import of a missing file was not refused naming it; serve said:\n%s", got)
	}
	if got := pidOf(t, cs, "a__pid"); got != a {
		t.Errorf("server a restarted: pid %d, was %d", got, a)
	}
}

// TestServeReloadFollowsImportOfRefusedConfig: a JSON file that an edit of the YAML newly
// imports, and that is refused (it has an error, or does not exist yet), is followed all the
// same: fixing or creating it is the reload that applies the config, without touching the YAML
// again.
func TestServeReloadFollowsImportOfRefusedConfig(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, path, "mcp_servers:\n  a: {command: "+bin+"}\n")
	_, url, log := startReloadServe(t, path)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listed := func(tool string) func() bool {
		return func() bool {
			tools, err := cs.ListTools(context.Background(), nil)
			return err == nil && slices.ContainsFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == tool })
		}
	}
	refusedAt := func(from int, file string) {
		t.Helper()
		waitReload(t, "a refused reload naming "+file, func() bool {
			got := log.String()[from:]
			return strings.Contains(got, "config reload refused") && strings.Contains(got, file)
		})
	}

	// A broken file in another folder (as .vscode/mcp.json is), then fixed.
	ide := filepath.Join(dir, "ide", "mcp.json")
	writeFile(t, ide, `{"servers": {"b": {"comand": "`+bin+`"}}}`)
	from := len(log.String())
	replaceFile(t, path, "mcp_servers:\n  a: {command: "+bin+"}\nimport: [ide/mcp.json]\n")
	refusedAt(from, ide)
	replaceFile(t, ide, `{"servers": {"b": {"command": "`+bin+`"}}}`)
	waitReload(t, "b__pid listed once the imported file is fixed", listed("b__pid"))

	// A file in the config's folder that does not exist yet, then created.
	later := filepath.Join(dir, "later.json")
	from = len(log.String())
	replaceFile(t, path, "mcp_servers:\n  a: {command: "+bin+"}\nimport: [ide/mcp.json, later.json]\n")
	refusedAt(from, later)
	replaceFile(t, later, `{"mcpServers": {"c": {"command": "`+bin+`"}}}`)
	waitReload(t, "c__pid listed once the imported file is created", listed("c__pid"))
}
