package connpool

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// A server that redirects to another origin does not get the configured headers, the URL's
// query or its user info sent there: net/http follows the redirect, but the secrets are for
// the configured server only (net/http itself drops only Authorization and cookies, and only
// to another domain).
func TestSecretsNotSentOnRedirect(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s %v", r.Method, r.URL, r.Header))
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer other.Close()
	// Another origin: another host name (localhost, not 127.0.0.1) and port.
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	p := newTestPool(t, nil)
	for _, typ := range []string{TypeStreamableHTTP, TypeSSE} {
		u := strings.Replace(redirector.URL, "http://", "http://user:pw-SECRET456@", 1) + "/mcp?token=SECRET123"
		cfg := ServerConfig{Name: "redir", Server: decl.Server{Type: typ, URL: u, StartupTimeout: 10 * time.Second, Headers: map[string]string{"X-Api-Key": "HDRSECRET789", "Authorization": "Bearer HDRSECRET789"}}}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := p.Get(ctx, cfg, GlobalPartition)
		cancel()
		if err == nil {
			p.Release(c)
			t.Fatalf("%s: start through a redirect to a 404 succeeded", typ)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the redirect was not followed: the test proves nothing")
	}
	for _, s := range seen {
		assertNoSecret(t, "request to the redirect target", s)
	}
}

// An SSE server whose endpoint event names another origin does not get the configured
// headers sent there either (the TypeScript SDK refuses such an endpoint outright).
func TestSSEHeadersStayWithOrigin(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s %v", r.Method, r.URL, r.Header))
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer other.Close()
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/messages?sessionid=1"
	sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", target)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer sse.CloseClientConnections()
	defer sse.Close()
	p := newTestPool(t, nil)
	cfg := ServerConfig{Name: "sse", Server: decl.Server{Type: TypeSSE, URL: sse.URL + "/sse", StartupTimeout: 5 * time.Second, Headers: map[string]string{"X-Api-Key": "HDRSECRET789"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	c, err := p.Get(ctx, cfg, GlobalPartition)
	cancel()
	if err == nil {
		p.Release(c)
		t.Fatal("start against a 404 message endpoint succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the message endpoint was not used: the test proves nothing")
	}
	for _, s := range seen {
		assertNoSecret(t, "request to the other origin", s)
	}
}

// A redirect net/http cannot follow (a Location that does not parse) fails the request with
// a *url.Error naming the URL of the response: not the URL put back together for the wire.
func TestSecretsNotPrintedOnBadRedirect(t *testing.T) {
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "%zz")
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	defer bad.Close()
	p, logs := capturePool(t)
	for _, typ := range []string{TypeStreamableHTTP, TypeSSE} {
		u := strings.Replace(bad.URL, "http://", "http://user:pw-SECRET456@", 1) + "/mcp?token=SECRET123"
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := p.Get(ctx, ServerConfig{Server: decl.Server{Type: typ, URL: u, StartupTimeout: 10 * time.Second}}, GlobalPartition)
		cancel()
		if err == nil {
			t.Fatalf("%s: start against a bad redirect succeeded", typ)
		}
		if !strings.Contains(err.Error(), "Location") {
			t.Errorf("%s: the error does not come from the redirect: %v", typ, err)
		}
		assertNoSecret(t, "start error", err.Error())
	}
	assertNoSecret(t, "log", logs.String())
}
