package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRootsChangedReachTheSessionsServers: a client's notifications/roots/list_changed reaches
// its own session's server (which then asks for roots again and gets the new ones), and not
// another session's.
func TestRootsChangedReachTheSessionsServers(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	f := newFixtureArgs(t, nil, "--log", log)
	client := mcp.NewClient(&mcp.Implementation{Name: "roots", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file:///one", Name: "one"})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	other, _ := connect(t, f.url, nil)
	pid := call(t, cs, "fault__pid", map[string]any{})
	otherPid := call(t, other, "fault__pid", map[string]any{})
	if got := call(t, cs, "fault__roots", map[string]any{}); got != "file:///one" {
		t.Fatalf("roots before = %q", got)
	}
	client.AddRoots(&mcp.Root{URI: "file:///two", Name: "two"}) // sends roots/list_changed
	lines := func(prefix string) int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), prefix+"\n")
	}
	testwait.For(t, "the session's server to hear of the change", func() bool { return lines("roots-changed "+pid) == 1 })
	if got := call(t, cs, "fault__roots", map[string]any{}); got != "file:///one\nfile:///two" {
		t.Errorf("roots after = %q", got)
	}
	call(t, other, "fault__pid", map[string]any{}) // the other session's server is live and was not told
	if n := lines("roots-changed " + otherPid); n != 0 {
		t.Errorf("the other session's server was told %d times", n)
	}
}
