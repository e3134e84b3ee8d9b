package connpool

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The secrets the tests below put in URLs and headers; none may be printed.
var secrets = []string{"SECRET123", "pw-SECRET456", "HDRSECRET789"}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// capturePool returns a test pool whose log lines (every level) go to the returned buffer.
func capturePool(t *testing.T) (*Pool, *syncBuffer) {
	t.Helper()
	var buf syncBuffer
	return newTestPool(t, &Options{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}), &buf
}

func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s shows secret %s:\n%s", what, s, text)
		}
	}
}

// closedPort returns a 127.0.0.1 port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// A server that cannot be reached is reported with its URL's query values and user info
// redacted, in the error and in every log line; header values are never shown.
func TestSecretsNotPrintedOnFailedStart(t *testing.T) {
	p, logs := capturePool(t)
	port := closedPort(t)
	for _, typ := range []string{TypeStreamableHTTP, TypeSSE} {
		for _, name := range []string{"", "web"} {
			for _, u := range []string{
				fmt.Sprintf("http://127.0.0.1:%d/mcp?token=SECRET123&x=1", port),
				fmt.Sprintf("http://user:pw-SECRET456@127.0.0.1:%d/mcp", port),
			} {
				cfg := ServerConfig{Name: name, Server: decl.Server{Type: typ, URL: u, Headers: map[string]string{"Authorization": "Bearer HDRSECRET789"}, StartupTimeout: 10 * time.Second}}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				_, err := p.Get(ctx, cfg, GlobalPartition)
				cancel()
				if !errors.Is(err, ErrStart) {
					t.Fatalf("%s %q: err = %v, want ErrStart", typ, name, err)
				}
				assertNoSecret(t, "start error", err.Error())
				if !strings.Contains(err.Error(), "REDACTED") && name == "" {
					t.Errorf("an unnamed server should be named by its redacted URL: %v", err)
				}
				assertNoSecret(t, "%v of ServerConfig", fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg))
			}
		}
	}
	assertNoSecret(t, "log", logs.String())
}

// A live HTTP server that goes away fails the calls in flight and later ones, and ends the
// client; neither the errors nor the log lines show the URL's token.
func TestSecretsNotPrintedWhenServerDies(t *testing.T) {
	base, cmd := startHTTPServerCmd(t)
	p, logs := capturePool(t)
	cfg := ServerConfig{Name: "web", Server: decl.Server{URL: base + "?token=SECRET123", Headers: map[string]string{"X-Key": "HDRSECRET789"}}}
	c := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(c)
	mustCall(t, c, "echo", map[string]any{"text": "hi"})
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := call(ctx, c, "echo", map[string]any{"text": "again"})
	if err == nil {
		t.Fatal("call to a dead server succeeded")
	}
	assertNoSecret(t, "call error", err.Error())
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("client did not end after its server died")
	}
	assertNoSecret(t, "lease error", c.Err().Error())
	assertNoSecret(t, "log", logs.String())
}

// The secrets kept out of messages still reach the server: the query token and the basic
// credentials of the configured URL are sent on every request.
func TestURLCredentialsStillSent(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, nil)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var mu sync.Mutex
	var refused []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		if r.URL.Query().Get("token") != "SECRET123" || user != "user" || pass != "pw-SECRET456" {
			mu.Lock()
			refused = append(refused, fmt.Sprintf("%s %s (auth %q)", r.Method, r.URL, r.Header.Get("Authorization")))
			mu.Unlock()
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer ts.Close()
	p, logs := capturePool(t)
	u := strings.Replace(ts.URL, "http://", "http://user:pw-SECRET456@", 1) + "/mcp?token=SECRET123"
	c := mustGet(t, p, ServerConfig{Name: "guarded", Server: decl.Server{URL: u}}, GlobalPartition)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Session().ListTools(ctx, nil); err != nil {
		t.Fatalf("list tools: %v", err)
	}
	p.Release(c)
	if err := p.ClosePartition(ctx, GlobalPartition); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refused) > 0 {
		t.Errorf("requests without the URL's credentials: %q", refused)
	}
	assertNoSecret(t, "log", logs.String())
	// An Authorization header in Headers wins over the URL's user info, as it did before.
	_, hdr := newHTTPClient(u, nil, nil)
	req, _ := http.NewRequest("GET", RedactURL(u), nil)
	req.Header.Set("Authorization", "Bearer explicit")
	if got := hdr.restore(req).Header.Get("Authorization"); got != "Bearer explicit" {
		t.Errorf("explicit Authorization replaced by %q", got)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/mcp":               "http://h/mcp",
		"http://h/mcp?token=abc&x=1": "http://h/mcp?token=REDACTED&x=REDACTED",
		"https://u:p@h:8/p":          "https://REDACTED@h:8/p",
		"https://u@h/p?k":            "https://REDACTED@h/p?REDACTED",
		"http://h/p#frag":            "http://h/p#REDACTED",
		"http://h/p?a=1&&b=":         "http://h/p?a=REDACTED&&REDACTED",
		"://not a url?token=abc":     "REDACTED (not a valid URL)",
		"http://h/p?" + base64.URLEncoding.EncodeToString([]byte("x")): "http://h/p?REDACTED", // "eA=="
		"http://h/p?YWJjZGU=": "http://h/p?REDACTED",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// Validate's messages about a URL never show its secrets.
func TestValidateRedactsURL(t *testing.T) {
	for _, cfg := range []ServerConfig{
		{Server: decl.Server{URL: "ftp://u:pw-SECRET456@h/p?token=SECRET123"}},
		{Server: decl.Server{Command: "x", URL: "http://h/p?token=SECRET123"}},
		{Server: decl.Server{URL: "http://u:pw-SECRET456@h:port/p?token=SECRET123"}},
		{Server: decl.Server{URL: "http://h/p?token=SECRET123", Headers: map[string]string{"Bad Name": "HDRSECRET789"}}},
	} {
		err := cfg.Validate()
		if err == nil {
			t.Fatalf("%v: no error", cfg)
		}
		assertNoSecret(t, "Validate", err.Error())
	}
}
