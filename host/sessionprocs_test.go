package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// A session's places under pool.max_session_processes are taken as it opens, before its
// servers start: of sessions opening at once, only as many as the cap has places for open,
// every other is refused with ext.ErrLimit naming the key, each session opened runs its server,
// and a session closed gives its place to the next.
func TestSessionProcessesReservedAtOpen(t *testing.T) {
	const max, opens = 2, 8
	bin := testserver.Build(t)
	h := buildHost(t, "x.yaml", fmt.Sprintf("pool: {max_session_processes: %d}\nmcp_servers:\n  private: {command: %s, scope: session, prefix: \"\"}\n", max, bin), Options{})
	ctx := context.Background()
	errs := make([]error, opens)
	var wg sync.WaitGroup
	for i := range opens {
		wg.Go(func() { _, errs[i] = h.OpenSession(ctx, fmt.Sprint("s", i)) })
	}
	wg.Wait()
	var opened []string
	for i, err := range errs {
		switch {
		case err == nil:
			opened = append(opened, fmt.Sprint("s", i))
		case !errors.Is(err, ext.ErrLimit) || !strings.Contains(err.Error(), "pool.max_session_processes"):
			t.Errorf("session s%d refused with %v, want ext.ErrLimit naming pool.max_session_processes", i, err)
		}
	}
	if len(opened) != max {
		t.Fatalf("%d of %d sessions opened under max_session_processes %d: %v", len(opened), opens, max, opened)
	}
	for _, sid := range opened {
		sessionCall(t, h, sid, "pid", `{}`)
	}
	if _, err := h.OpenSession(ctx, "late"); !errors.Is(err, ext.ErrLimit) {
		t.Fatalf("a session at the cap: %v, want ext.ErrLimit", err)
	}
	if err := h.CloseSession(ctx, opened[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := h.OpenSession(ctx, "late"); err != nil {
		t.Fatalf("a session after one closed: %v", err)
	}
	sessionCall(t, h, "late", "pid", `{}`)
}
