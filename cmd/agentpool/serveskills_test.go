package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveStdio starts `agentpool ARGS... serve --stdio` in an empty HOME and working folder and
// connects a go-sdk client with opts over its stdin/stdout; both end with the test.
func serveStdio(t *testing.T, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cs, _ := serveStdioLogged(t, opts, append(args, "serve", "--stdio")...)
	return cs
}

// serveStdioLogged starts `agentpool ARGS...` (a serve --stdio command line) in an empty HOME
// and working folder and connects a go-sdk client with opts over its stdin/stdout; both end
// with the test. It returns the client and what serve writes on stderr, as it comes.
func serveStdioLogged(t *testing.T, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cs, in, stderr := connectStdio(t, cmd, opts)
	t.Cleanup(func() {
		_ = in.Close()
		waitExit(t, cmd, "serve --stdio")
		_ = cs.Close()
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("serve exit code %d; stderr:\n%s", code, stderr)
		}
	})
	return cs, stderr
}

// connectStdio starts cmd, an `agentpool serve --stdio`, and connects a client with opts to
// it over its stdin and stdout. It returns the client, serve's stdin (closing it ends serve)
// and what serve writes on stderr, as it comes; when the client cannot connect it kills serve
// and fails t with that stderr.
func connectStdio(t *testing.T, cmd *exec.Cmd, opts *mcp.ClientOptions) (*mcp.ClientSession, io.WriteCloser, *syncBuffer) {
	t.Helper()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), &mcp.IOTransport{Reader: out, Writer: in}, nil)
	if err != nil {
		_ = cmd.Process.Kill()
		waitExit(t, cmd, strings.Join(cmd.Args[1:], " "))
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
	}
	return cs, in, stderr
}

// serveTwoSkills serves skills hello-world and other from a new root through `serve --stdio`
// and returns the root, hello-world's SKILL.md, the client, and the URIs of the
// notifications/resources/updated the client has had so far.
func serveTwoSkills(t *testing.T) (root, md string, cs *mcp.ClientSession, updated func() []string) {
	t.Helper()
	root = t.TempDir()
	md = filepath.Join(root, "hello-world", "SKILL.md")
	writeFile(t, md, "---\nname: hello-world\ndescription: Greets.\n---\nHello.\n")
	writeFile(t, filepath.Join(root, "other", "SKILL.md"), "---\nname: other\ndescription: Other.\n---\nOther.\n")
	var mu sync.Mutex
	var uris []string
	cs = serveStdio(t, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		mu.Lock()
		uris = append(uris, req.Params.URI)
		mu.Unlock()
	}}, "--no-default-roots", "--skills-dir", root)
	return root, md, cs, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(uris)
	}
}

// TestServeSkillSubscription: through `agentpool serve`, a client subscribes to a skill's
// SKILL.md (by its file URI and by the skill's own URI) and gets
// notifications/resources/updated for each when the file is edited on disk; after
// unsubscribing it gets none for that URI.
func TestServeSkillSubscription(t *testing.T) {
	t.Parallel()
	root, md, cs, got := serveTwoSkills(t)
	ctx := context.Background()
	init := cs.InitializeResult()
	if c := init.Capabilities.Resources; c == nil || !c.Subscribe {
		t.Fatalf("resources capability %+v: subscribe not advertised", c)
	}
	for _, uri := range []string{"skill://hello-world/SKILL.md", "skill://hello-world", "skill://other/SKILL.md"} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://nosuch/SKILL.md"}); err == nil {
		t.Errorf("subscribe to a skill that does not exist succeeded")
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "skill://other/SKILL.md"}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, md, "---\nname: hello-world\ndescription: Greets.\n---\nHello again.\n")
	writeFile(t, filepath.Join(root, "other", "SKILL.md"), "---\nname: other\ndescription: Other.\n---\nOther again.\n")
	testwait.For(t, "resources/updated for both subscriptions of hello-world", func() bool {
		u := got()
		return slices.Contains(u, "skill://hello-world/SKILL.md") && slices.Contains(u, "skill://hello-world")
	})
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://hello-world/SKILL.md"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Hello again.") {
		t.Errorf("read after the update: %v %+v", err, rr)
	}
	// The other skill's edit is announced (resources/list_changed path) but reaches no
	// unsubscribed URI.
	if slices.Contains(got(), "skill://other/SKILL.md") {
		t.Errorf("resources/updated %v names a URI the client unsubscribed from", got())
	}
}

// TestServeSkillPathCompletion: through `agentpool serve`, completion/complete of the
// skill://{+path} template completes skill paths, then the files of the skills they name, at
// most 100 values as MCP says.
func TestServeSkillPathCompletion(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "hello-world", "SKILL.md"), "---\nname: hello-world\ndescription: Greets.\n---\nHello.\n")
	writeFile(t, filepath.Join(root, "hello-world", "references", "greetings.md"), "Hi.\n")
	writeFile(t, filepath.Join(root, "help", "SKILL.md"), "---\nname: help\ndescription: Helps.\n---\nHelp.\n")
	writeFile(t, filepath.Join(root, "other", "SKILL.md"), "---\nname: other\ndescription: Other.\n---\nOther.\n")
	for i := range 120 {
		writeFile(t, filepath.Join(root, "other", "many", strings.Repeat("x", i%7+1)+string(rune('a'+i%26))+strings.Repeat("y", i/26)+".md"), "x\n")
	}
	cs := serveStdio(t, nil, "--no-default-roots", "--skills-dir", root)
	ctx := context.Background()
	complete := func(value string) *mcp.CompleteResult {
		t.Helper()
		res, err := cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "skill://{+path}"},
			Argument: mcp.CompleteParamsArgument{Name: "path", Value: value},
		})
		if err != nil {
			t.Fatalf("complete %q: %v", value, err)
		}
		return res
	}
	if got, want := complete("he").Completion.Values, []string{"hello-world", "help", "hello-world/SKILL.md", "hello-world/references/greetings.md", "help/SKILL.md"}; !slices.Equal(got, want) {
		t.Errorf("complete he = %q, want %q", got, want)
	}
	// A value typed as a whole URI completes to whole URIs.
	if got := complete("skill://hello-w").Completion.Values; len(got) != 3 || got[0] != "skill://hello-world" || got[1] != "skill://hello-world/SKILL.md" {
		t.Errorf("complete skill://hello-w = %q, want skill://hello-world and its files", got)
	}
	if got, want := complete("hello-world/r").Completion.Values, []string{"hello-world/references/greetings.md"}; !slices.Equal(got, want) {
		t.Errorf("complete hello-world/r = %q, want %q", got, want)
	}
	if got := complete("nosuch").Completion; len(got.Values) != 0 || got.HasMore {
		t.Errorf("complete nosuch = %+v, want nothing", got)
	}
	many := complete("other/").Completion
	if len(many.Values) != 100 || !many.HasMore || many.Values[0] != "other/SKILL.md" {
		t.Errorf("complete other/ = %d values (hasMore %v), want 100, other/SKILL.md first, and more: %q", len(many.Values), many.HasMore, many.Values)
	}
}

// TestServeSkillSubscriptionLargeEdit: an edit touching 40 files of a skill at once, its
// SKILL.md among them, still sends resources/updated for the subscribed SKILL.md (under both
// of its URIs), and none for a subscribed skill the edit left alone.
func TestServeSkillSubscriptionLargeEdit(t *testing.T) {
	t.Parallel()
	root, md, cs, got := serveTwoSkills(t)
	ctx := context.Background()
	for _, uri := range []string{"skill://hello-world/SKILL.md", "skill://hello-world", "skill://other/SKILL.md"} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	for i := range 39 {
		writeFile(t, filepath.Join(root, "hello-world", "references", fmt.Sprintf("ref%02d.md", i)), "ref\n")
	}
	writeFile(t, md, "---\nname: hello-world\ndescription: Greets.\n---\nHello again.\n")
	testwait.For(t, "resources/updated for both subscriptions of hello-world", func() bool {
		u := got()
		return slices.Contains(u, "skill://hello-world/SKILL.md") && slices.Contains(u, "skill://hello-world")
	})
	if slices.Contains(got(), "skill://other/SKILL.md") {
		t.Errorf("resources/updated %v names a skill the edit did not touch", got())
	}
}

// TestMistypedSkillURIHint: a skill:// URI naming skill hello-world as hello_world is not
// found, through `serve` (resources/read keeps its -32002) and `resources read`, with the
// hint naming skill://hello-world, as load_skill gives for the name.
func TestMistypedSkillURIHint(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "hello-world", "SKILL.md"), "---\nname: hello-world\ndescription: Greets.\n---\nHello.\n")
	const hint = "did you mean skill://hello-world?"
	cs := serveStdio(t, nil, "--no-default-roots", "--skills-dir", root)
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://hello_world"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != mcp.CodeResourceNotFound || !strings.Contains(we.Message, hint) {
		t.Errorf("resources/read skill://hello_world: %v; want error %d with %q", err, mcp.CodeResourceNotFound, hint)
	}

	cmd := exec.Command("agentpool", "--no-default-roots", "--skills-dir", root, "resources", "read", "skill://hello_world")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), hint) || strings.Contains(string(out), "Hello.") {
		t.Errorf("resources read skill://hello_world: %v\n%s\nwant a failure with %q", err, out, hint)
	}
}
