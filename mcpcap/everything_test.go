package mcpcap

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
)

// everythingBin locates the npm reference server installed by make test (npm ci). A missing
// install fails the test: it is a broken setup, not a reason to skip.
func everythingBin(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "testdata", "npm", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s missing: run make test (npm ci --prefix testdata/npm): %v", bin, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: run make test with Node 20 installed: %v", err)
	}
	return bin
}

// startEverythingHTTP runs the reference server's streamable HTTP transport on a free port and
// returns its /mcp URL. The process is killed at the end of the test.
func startEverythingHTTP(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything streamableHttp did not start listening")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

func TestEverythingStdio(t *testing.T) {
	bin := everythingBin(t)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"stdio"}}}})
	exerciseEverything(t, c)
}

func TestEverythingStreamableHTTP(t *testing.T) {
	bin := everythingBin(t)
	url := startEverythingHTTP(t, bin)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "everything", Server: connpool.ServerConfig{Server: decl.Server{Type: "streamable-http", URL: url}}})
	exerciseEverything(t, c)
}

func exerciseEverything(t *testing.T, c *Cap) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rec recorder
	defer c.Observe(rec.add)()

	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(tools))
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"echo", "get-sum", "get-tiny-image", "gzip-file-as-resource"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %q", names, want)
		}
	}
	if got := callText(t, c, "echo", `{"message":"hi there"}`); !strings.Contains(got, "hi there") {
		t.Fatalf("echo = %q", got)
	}
	if got := callText(t, c, "get-sum", `{"a":2,"b":3}`); !strings.Contains(got, "5") {
		t.Fatalf("get-sum = %q", got)
	}
	img, err := c.CallTool(ctx, &ext.ToolCall{Name: "get-tiny-image", Arguments: nil})
	if err != nil || !slices.ContainsFunc(img.Content, func(ct ext.Content) bool { return ct.Type == ext.ContentImage && len(ct.Data) > 0 }) {
		t.Fatalf("get-tiny-image = %+v, %v; want image content", img, err)
	}

	resources, err := c.ListResources(ctx)
	if err != nil || len(resources) == 0 {
		t.Fatalf("resources = %d, %v", len(resources), err)
	}
	if ok, err := c.ResourceExists(ctx, resources[0].URI); !ok || err != nil {
		t.Fatalf("ResourceExists(%s) = %v, %v", resources[0].URI, ok, err)
	}
	rc, err := c.ReadResource(ctx, resources[0].URI)
	if err != nil || len(rc) == 0 {
		t.Fatalf("read %s = %v, %v", resources[0].URI, rc, err)
	}
	tmpls, err := c.ListResourceTemplates(ctx)
	if err != nil || len(tmpls) == 0 {
		t.Fatalf("templates = %v, %v", tmpls, err)
	}
	dyn := strings.Replace(tmpls[0].URITemplate, "{resourceId}", "1", 1)
	if ok, err := c.ResourceExists(ctx, dyn); !ok || err != nil {
		t.Fatalf("ResourceExists(%s) from template %s = %v, %v", dyn, tmpls[0].URITemplate, ok, err)
	}
	if rc, err := c.ReadResource(ctx, "mcp://everything/"+dyn); err != nil || len(rc) == 0 {
		t.Fatalf("read %s = %v, %v", dyn, rc, err)
	}

	cmds, err := c.ListCommands(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cmdNames []string
	for _, e := range cmds {
		cmdNames = append(cmdNames, e.Name)
	}
	if !slices.Contains(cmdNames, "everything:simple-prompt") || !slices.Contains(cmdNames, "everything:args-prompt") {
		t.Fatalf("commands = %v", cmdNames)
	}
	if out, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "everything:simple-prompt", Args: nil}); err != nil || out.Text() == "" {
		t.Fatalf("simple-prompt = %q, %v", out.Text(), err)
	}
	if out, err := c.GetCommand(ctx, &ext.CommandRequest{Name: "everything:args-prompt", Args: []string{"Paris", "France"}}); err != nil || !strings.Contains(out.Text(), "Paris") {
		t.Fatalf("args-prompt = %q, %v", out.Text(), err)
	}

	comp, err := c.Complete(ctx, &ext.CompleteRequest{Ref: ext.CompleteRef{Type: "ref/prompt", Name: "everything:completable-prompt"},
		Argument: ext.CompleteArgument{Name: "department", Value: "Sa"}})
	if err != nil || !slices.Equal(comp.Values, []string{"Sales"}) {
		t.Fatalf("completion = %+v, %v", comp, err)
	}

	// list_changed: the gzip tool registers a session resource.
	before := rec.count(ext.ResourcesChanged)
	res, err := c.CallTool(ctx, &ext.ToolCall{Name: "gzip-file-as-resource", Arguments: json.RawMessage(`{"name":"hello.txt.gz","data":"data:text/plain;base64,aGVsbG8gd29ybGQ=","outputType":"resourceLink"}`)})
	if err != nil || res.IsError {
		t.Fatalf("gzip-file-as-resource = %+v, %v", res, err)
	}
	testwait.For(t, "resources_changed from resources/list_changed", func() bool { return rec.count(ext.ResourcesChanged) > before })
	var link string
	for _, ct := range res.Content {
		if ct.Type == ext.ContentResourceLink {
			link = ct.URI
		}
	}
	if ok, err := c.ResourceExists(ctx, link); !ok || err != nil {
		t.Fatalf("new session resource %q not listed after list_changed: %v, %v", link, ok, err)
	}
}
