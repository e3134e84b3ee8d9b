package connpool

import (
	"errors"
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
