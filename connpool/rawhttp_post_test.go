package connpool

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The posts of a session share one header, which no RoundTripper on the way may change:
// concurrent calls through the client's own transports (the race detector watches) each
// carry it whole.
func TestRawHTTPPostsShareTheirHeader(t *testing.T) {
	const want = "s1"
	var mu sync.Mutex
	bad := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Mcp-Session-Id") != want || r.Header.Get("Mcp-Protocol-Version") != "v1" ||
			r.Header.Get("Accept") != "application/json, text/event-stream" {
			mu.Lock()
			bad++
			mu.Unlock()
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	hc, _ := newHTTPClient(srv.URL, nil, func(error) {}) // no configured header: nothing clones the shared one on the way
	h := &rawHTTP{hc: hc, endpoint: srv.URL, session: want, version: "v1", c: &client{}, life: context.Background()}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				resp, err := h.post(context.Background(), []byte(`{}`))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	if bad != 0 {
		t.Fatalf("%d of 160 posts arrived without the session's header", bad)
	}
	if len(h.header) != 4 {
		t.Fatalf("the shared header has %d fields after the posts, want its 4: %v", len(h.header), h.header)
	}
}

// A passed-through call whose endpoint answers with a redirect is sent to that endpoint once,
// as http.Client.Do sends it: the redirect is followed from the answer received, not by
// sending the call there again. A 303 (or 301, 302) answers a POST the server may have acted
// on, and is followed by a GET of the place it names; a 307 or 308, by the same POST there.
func TestRawHTTPRedirectSendsTheCallOnce(t *testing.T) {
	const id = rawIDPrefix + "1"
	answer := `{"jsonrpc":"2.0","id":"` + id + `","result":{"ok":true}}`
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			var mu sync.Mutex
			posts := 0         // calls received at the endpoint that redirects
			var there []string // the session header and body the redirect's target received
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if r.URL.Path != "/mcp" {
					mu.Lock()
					there = append(there, r.Header.Get("Mcp-Session-Id"), string(body))
					mu.Unlock()
				}
				if r.URL.Path == "/mcp" {
					mu.Lock()
					posts++
					mu.Unlock()
					http.Redirect(w, r, "/there", code)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, answer)
			}))
			defer srv.Close()
			h := &rawHTTP{hc: srv.Client(), endpoint: srv.URL + "/mcp", session: "s1", c: &client{}, life: context.Background()}
			res, err := h.call(context.Background(), "tools/call", []byte(`{"name":"x"}`))
			if err != nil || string(res) != `{"ok":true}` {
				t.Fatalf("a redirected call: %s, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if posts != 1 {
				t.Fatalf("the endpoint that redirected received the call %d times, want 1", posts)
			}
			keepsBody := code == http.StatusTemporaryRedirect || code == http.StatusPermanentRedirect
			if len(there) != 2 || there[0] != "s1" || keepsBody != strings.Contains(there[1], `"method":"tools/call"`) {
				t.Fatalf("the redirect's target received %q, want the session's header and (307, 308) the call", there)
			}
		})
	}
}
