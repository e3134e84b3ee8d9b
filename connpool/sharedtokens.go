package connpool

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// sharedTokens holds, for each server and user (TokenKey), the one token source every
// client of that server in the pool uses: the pool's and each session's. Apart, two clients
// each renewed the same refresh token, and a server that rotates refresh tokens (each one
// good once, as OAuth 2.1 asks of public clients) refused the second, whose session then
// needed a login.
type sharedTokens struct {
	mu sync.Mutex
	m  map[TokenKey]*renewing

	once sync.Once
	hc   *http.Client // the shared sources' token requests; idle connections closed with the pool

	dial func(ctx context.Context, network, addr string) (net.Conn, error) // Options.DialContext
}

// client returns the HTTP client of the shared sources' token requests: not any one
// connection's, which ends with that connection while the source outlives it.
func (s *sharedTokens) client() *http.Client {
	s.once.Do(func() {
		// No keep-alive: token requests come once a token's lifetime, and a refresh still
		// under way at the pool's Close would put its connection back as idle after Close
		// closed the idle ones, leaving its goroutines for 90 s.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableKeepAlives = true
		if s.dial != nil {
			t.DialContext = s.dial
		}
		s.hc = &http.Client{Transport: t, Timeout: 30 * time.Second}
	})
	return s.hc
}

// get returns key's source, nil when there is none yet.
func (s *sharedTokens) get(key TokenKey) *renewing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// adopt makes r's token key's: the source already there takes it over (its users see the
// new token at once) and is returned, or r becomes key's source.
func (s *sharedTokens) adopt(key TokenKey, r *renewing) *renewing {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[TokenKey]*renewing{}
	}
	old := s.m[key]
	if old == nil {
		s.m[key] = r
		return r
	}
	old.takeOver(r)
	return old
}

// fromStore makes key's source of the stored token st (made by mk) if there is none yet. If
// there is one and the store holds another token than the source's, the source takes the
// stored one: another process stored it (the user's new login after a revocation, or that
// process's own refresh), and the source's may be revoked or used up. The store is read again
// under the source's lock, which its renewals save under, so that a renewal since st was read
// is not taken for another process's token.
func (s *sharedTokens) fromStore(key TokenKey, st *StoredToken, load func() (*StoredToken, error), mk func(*StoredToken) *renewing) {
	s.mu.Lock()
	r := s.m[key]
	if r == nil {
		if s.m == nil {
			s.m = map[TokenKey]*renewing{}
		}
		s.m[key] = mk(st)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tok != nil && r.tok.AccessToken == st.AccessToken {
		return
	}
	st, err := load()
	if err != nil || st == nil || st.AccessToken == "" || r.tok != nil && r.tok.AccessToken == st.AccessToken {
		return
	}
	r.takeOverLocked(mk(st))
}

// close closes the token requests' idle connections. It reads hc through once, as client
// sets it (not under mu, which a renewal holding its source's lock must not take).
func (s *sharedTokens) close() {
	s.client().CloseIdleConnections()
}
