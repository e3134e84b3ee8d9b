package connpool

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestRefreshFailureBacksOff: a renewal that fails while the old token is still valid keeps
// that token, and is not tried again by every request (each waiting, one at a time, for the
// token endpoint) but after a pause.
func TestRefreshFailureBacksOff(t *testing.T) {
	var renewals atomic.Int32
	old := &oauth2.Token{AccessToken: "old", Expiry: time.Now().Add(time.Hour)}
	r := newRenewing(old, func(*oauth2.Token) (*oauth2.Token, error) {
		renewals.Add(1)
		return nil, errors.New("token endpoint down")
	}, nil)
	r.mu.Lock()
	r.renewAt = time.Now().Add(-time.Second) // due
	r.mu.Unlock()
	for i := range 10 {
		tok, err := r.Token()
		if err != nil || tok.AccessToken != "old" {
			t.Fatalf("call %d: %v, %v; want the old token", i, tok, err)
		}
	}
	if n := renewals.Load(); n != 1 {
		t.Errorf("10 calls made %d renewals, want 1 until a pause has passed", n)
	}
	r.mu.Lock()
	wait := time.Until(r.renewAt)
	r.mu.Unlock()
	if wait <= 0 || wait > time.Minute {
		t.Errorf("next renewal in %v, want a short pause", wait)
	}
}

// tokenEndpoint is a token endpoint that records the requests and answers with answer.
type tokenEndpoint struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []url.Values // each request's form, plus "basic-user" and "basic-pass"
	answer func(w http.ResponseWriter, form url.Values)
}

func newTokenEndpoint(t *testing.T, answer func(w http.ResponseWriter, form url.Values)) *tokenEndpoint {
	e := &tokenEndpoint{answer: answer}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		form := r.PostForm
		if u, p, ok := r.BasicAuth(); ok {
			form.Set("basic-user", u)
			form.Set("basic-pass", p)
		}
		e.mu.Lock()
		e.reqs = append(e.reqs, form)
		e.mu.Unlock()
		e.answer(w, form)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *tokenEndpoint) requests() []url.Values {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reqs
}

func tokenJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// TestRefreshClientAuthAutoDetect: with AuthStyleAutoDetect the client authenticates in the
// header and, when the server refuses that, in the body, as oauth2 does. A refusal of the
// client's authentication may be a bare 401 (RFC 6749 §5.2) rather than invalid_client.
func TestRefreshClientAuthAutoDetect(t *testing.T) {
	for name, refuse := range map[string]func(w http.ResponseWriter){
		"invalid_client": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusUnauthorized)
			tokenJSON(w, map[string]string{"error": "invalid_client"})
		},
		"bare 401": func(w http.ResponseWriter) {
			w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		},
	} {
		e := newTokenEndpoint(t, func(w http.ResponseWriter, form url.Values) {
			if form.Get("basic-user") != "" {
				refuse(w)
				return
			}
			tokenJSON(w, map[string]any{"access_token": "new", "token_type": "Bearer", "expires_in": 60})
		})
		oc := &oauth2.Config{ClientID: "c", ClientSecret: "s", Endpoint: oauth2.Endpoint{TokenURL: e.srv.URL}}
		tok, err := refreshToken(context.Background(), e.srv.Client(), oc, "r1", "https://mcp.example/mcp")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		reqs := e.requests()
		if len(reqs) != 2 || reqs[1].Get("client_secret") != "s" || reqs[1].Get("resource") != "https://mcp.example/mcp" {
			t.Errorf("%s: requests %v, want the header then the body", name, reqs)
		}
		if tok.AccessToken != "new" || tok.RefreshToken != "r1" {
			t.Errorf("%s: token %+v, want new, keeping the refresh token", name, tok)
		}
	}
}
