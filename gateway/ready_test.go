package gateway

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// capReached is a session's own server whose start a cap refused at once, as connpool marks
// such an error (a LimitKey method).
type capReached struct{ namedTools }

type keyed struct{ error }

func (keyed) LimitKey() string { return "pool.max_session_processes" }

func (capReached) Tools(context.Context) ([]ext.ToolEntry, error) {
	return nil, fmt.Errorf("mcp server %q: %w", "fault", keyed{errors.New("pool.max_session_processes reached")})
}

// A session whose own server fails at once at a cap is refused with that cap (ext.ErrLimit),
// not admitted without the server.
func TestAwaitOwnRefusesACapReached(t *testing.T) {
	reg := ext.NewRegistry(nil)
	defer reg.Close(context.Background())
	scope := ext.Scope{SessionID: "s1"}
	if err := reg.Register(capReached{namedTools{"fault"}}, ext.LevelSession, scope); err != nil {
		t.Fatal(err)
	}
	g := &Gateway{reg: reg, opts: Options{OpenTimeout: time.Minute}}
	err := g.awaitOwn(context.Background(), scope)
	if key, ok := ext.LimitKey(err); !errors.Is(err, ext.ErrLimit) || !ok || key != "pool.max_session_processes" {
		t.Fatalf("awaitOwn: %v, want ext.ErrLimit with the key pool.max_session_processes", err)
	}
}

// listedAtDeadline is a session's own server whose listing succeeds as OpenTimeout ends: the
// answer and the deadline arrive together, or the answer came first and the check ran late.
type listedAtDeadline struct{ namedTools }

func (listedAtDeadline) Tools(ctx context.Context) ([]ext.ToolEntry, error) {
	<-ctx.Done()
	return nil, nil
}

// A session whose own servers all listed their tools is ready, even when OpenTimeout has
// passed by the time awaitOwn looks: a refusal needs a server that failed to be ready.
func TestAwaitOwnAdmitsServersListedAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := ext.NewRegistry(nil)
		defer reg.Close(context.Background())
		scope := ext.Scope{SessionID: "s1"}
		if err := reg.Register(listedAtDeadline{namedTools{"fault"}}, ext.LevelSession, scope); err != nil {
			t.Fatal(err)
		}
		g := &Gateway{reg: reg, opts: Options{OpenTimeout: time.Minute}}
		if err := g.awaitOwn(context.Background(), scope); err != nil {
			t.Fatalf("awaitOwn: %v, want nil: every server listed its tools", err)
		}
	})
}
