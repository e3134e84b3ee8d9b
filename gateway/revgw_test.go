package gateway_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
)

// TestCloseDuringOpen: Close while a session is still opening (its OpenSession running, as
// for a slow npx start at SIGTERM) must not end the session half-built while open goes on:
// the initialize is refused, CloseSession runs after OpenSession, and nothing of the session
// (its watch goroutine: goleak) is left.
func TestCloseDuringOpen(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var opened, closedAfterOpen bool
	var f *fixture
	f = newFixture(t, func(o *gateway.Options) {
		open, closeSession := o.OpenSession, o.CloseSession
		o.OpenSession = func(ctx context.Context, id string) error {
			close(entered)
			<-release
			err := open(ctx, id)
			mu.Lock()
			opened = true
			mu.Unlock()
			return err
		}
		o.CloseSession = func(ctx context.Context, id string) error {
			mu.Lock()
			if opened {
				closedAfterOpen = true
			}
			mu.Unlock()
			return closeSession(ctx, id)
		}
	})
	type answer struct {
		status int
		msgs   []map[string]any
	}
	got := make(chan answer, 1)
	go func() {
		status, _, msgs := post(t, f.url, "", initBody, nil)
		got <- answer{status, msgs}
	}()
	<-entered
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		closed <- f.g.Close(ctx)
	}()
	time.Sleep(100 * time.Millisecond) // Close has seen the opening session
	close(release)
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	a := <-got
	if a.status == http.StatusOK && rpcError(a.msgs) == nil {
		t.Errorf("an initialize opening during Close succeeded: %v", a.msgs)
	}
	if n := f.g.Sessions(); n != 0 {
		t.Errorf("Sessions() = %d after Close", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !closedAfterOpen {
		t.Error("CloseSession did not run after the session's OpenSession: its servers outlive it")
	}
}
