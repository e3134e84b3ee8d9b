package connpool

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
	"go.uber.org/goleak"

	"github.com/agentpool/agentpool/decl"
)

func fdCount(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// zombieChildren lists this process's children that are zombies.
func zombieChildren(t testing.TB) []string {
	t.Helper()
	me := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) >= 2 && f[0] == "Z" && f[1] == strconv.Itoa(me) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestSoakKill9Recover runs 100 kill -9 / recover cycles, alternating a
// direct server and an sh -c wrapper, and checks that no zombie, orphan, file
// descriptor or goroutine is left behind.
func TestSoakKill9Recover(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	bin := faultBinary(t)
	direct := ServerConfig{Name: "direct", Server: decl.Server{Command: bin}}
	wrapped := ServerConfig{Name: "wrapped", Server: decl.Server{Command: "sh", Args: []string{"-c", bin + "; echo x"}}}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	baseFDs := fdCount(t)

	p := New(&Options{Subreaper: true, KillGrace: 500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	var pgids []int
	for i := range 100 {
		cfg := direct
		if i%2 == 1 {
			cfg = wrapped
		}
		c := mustGet(t, p, cfg, GlobalPartition)
		pgid := c.PID()
		if i > 0 && pgid == pgids[len(pgids)-1] {
			t.Fatalf("cycle %d: Get returned the killed process %d", i, pgid)
		}
		pgids = append(pgids, pgid)
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				_, err := call(ctx, c, "sleep", map[string]any{"ms": 60000})
				errs <- err
			}()
		}
		if _, err := call(ctx, c, "echo", map[string]any{"text": "up"}); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if err := syscall.Kill(pgid, syscall.SIGKILL); err != nil {
			t.Fatalf("cycle %d: kill: %v", i, err)
		}
		for range 4 {
			if err := <-errs; err == nil || ctx.Err() != nil {
				t.Fatalf("cycle %d: in-flight call: %v (ctx %v)", i, err, ctx.Err())
			}
		}
		waitDone(t, c)
		p.Release(c)
		waitGroupGone(t, pgid)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, g := range pgids {
		if left := groupProcs(t, g); len(left) > 0 {
			t.Errorf("group %d left %v", g, left)
		}
	}
	if z := zombieChildren(t); len(z) > 0 {
		t.Errorf("zombie children: %v", z)
	}
	testwait.For(t, "fds back to baseline", func() bool { return fdCount(t) <= baseFDs })
}
