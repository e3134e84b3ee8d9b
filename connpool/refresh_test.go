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

// TestRefreshRequests: what a refresh sends and how it reads the answer.
func TestRefreshRequests(t *testing.T) {
	var answer atomic.Value
	answer.Store(map[string]any{"access_token": "a2", "token_type": "Bearer", "refresh_token": "r2", "expires_in": "120"})
	e := newTokenEndpoint(t, func(w http.ResponseWriter, form url.Values) { tokenJSON(w, answer.Load()) })
	ctx := context.Background()

	// client_secret_basic: each part form-encoded before the Basic encoding (RFC 6749 §2.3.1).
	oc := &oauth2.Config{ClientID: "my client:1", ClientSecret: "s+e/c r%t", Endpoint: oauth2.Endpoint{TokenURL: e.srv.URL, AuthStyle: oauth2.AuthStyleInHeader}}
	tok, err := refreshToken(ctx, e.srv.Client(), oc, "r1", "https://mcp.example/mcp")
	if err != nil {
		t.Fatal(err)
	}
	r := e.requests()[0]
	if r.Get("basic-user") != "my+client%3A1" || r.Get("basic-pass") != "s%2Be%2Fc+r%25t" || r.Has("client_id") || r.Has("client_secret") {
		t.Errorf("basic: %v", r)
	}
	if r.Get("grant_type") != "refresh_token" || r.Get("refresh_token") != "r1" || r.Get("resource") != "https://mcp.example/mcp" {
		t.Errorf("form: %v", r)
	}
	if tok.AccessToken != "a2" || tok.RefreshToken != "r2" || time.Until(tok.Expiry) < 100*time.Second {
		t.Errorf("token %+v", tok)
	}

	// A public client: client_id in the body, no secret, no header.
	oc = &oauth2.Config{ClientID: "pub", Endpoint: oauth2.Endpoint{TokenURL: e.srv.URL}}
	answer.Store(map[string]any{"access_token": "a3", "token_type": "Bearer"})
	tok, err = refreshToken(ctx, e.srv.Client(), oc, "r2", "")
	if err != nil {
		t.Fatal(err)
	}
	r = e.requests()[1]
	if r.Get("client_id") != "pub" || r.Has("client_secret") || r.Has("basic-user") || r.Has("resource") {
		t.Errorf("public client: %v", r)
	}
	if tok.RefreshToken != "r2" || !tok.Expiry.IsZero() {
		t.Errorf("no refresh_token, no expires_in: %+v, want r2 kept and no expiry", tok)
	}

	// An error answered with 200, as GitHub does: an error with its code.
	answer.Store(map[string]any{"error": "bad_refresh_token", "error_description": "expired"})
	_, err = refreshToken(ctx, e.srv.Client(), oc, "r2", "")
	var te *oauthError
	if !errors.As(err, &te) || te.Code != "bad_refresh_token" {
		t.Errorf("200 with an error: %v, want an oauthError bad_refresh_token", err)
	}
}
