package mcpcap

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"go.uber.org/goleak"
)

// TestSoakKill9Through100Cycles runs the kill -9 cycle of TestKill9WithCallsInFlight 100 times
// through McpServerCap, alternating a direct server and an `sh -c` wrapper whose grandchild is
// the real server, then closes everything and checks that no zombie, no process of any group the
// pool started, no file descriptor and no goroutine is left.
func TestSoakKill9Through100Cycles(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bin := testserver.Build(t)
	dir := t.TempDir()
	baseFDs := countFDs(t)
	p := connpool.New(&connpool.Options{Subreaper: true, KillGrace: 500 * time.Millisecond, IdleTimeout: -1})
	retry := decl.Retry{Attempts: 3, Backoff: 10 * time.Millisecond}
	args := func(log string) []string { return []string{"--log", log, "--call-delay", "100ms"} }
	directLog, wrappedLog := filepath.Join(dir, "direct.log"), filepath.Join(dir, "wrapped.log")
	direct, err := New(Config{Name: "direct", Retry: retry,
		Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: args(directLog)}}}, WithPool(p, ""))
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := New(Config{Name: "wrapped", Retry: retry, Server: connpool.ServerConfig{Server: decl.Server{Command: "sh", Args: []string{"-c", bin + " " + strings.Join(args(wrappedLog), " ") + "; echo exited >&2"}}}}, WithPool(p, ""))
	if err != nil {
		t.Fatal(err)
	}
	killers := []*killer{
		{t: t, c: direct, log: directLog, settle: 40 * time.Millisecond},
		{t: t, c: wrapped, log: wrappedLog, settle: 40 * time.Millisecond},
	}
	groups := map[int]bool{}
	for cycle := 0; cycle < 100; cycle++ {
		k := killers[cycle%2]
		groups[k.cycle(cycle)] = true
		groups[k.c.Status().PID] = true
		if t.Failed() {
			break
		}
	}
	for _, c := range []*Cap{direct, wrapped} {
		groups[c.Status().PID] = true
		if err := c.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for pgid := range groups {
		if members := groupMembers(pgid); len(members) > 0 {
			t.Errorf("process group %d still has processes %v", pgid, members)
		}
	}
	if z := zombies(); len(z) > 0 {
		t.Errorf("zombie children left: %v", z)
	}
	var n int
	defer func() {
		if n > baseFDs {
			t.Logf("file descriptors: %d after, %d before", n, baseFDs)
		}
	}()
	testwait.Within(t, 10*time.Second, "the file descriptors back to their number before", func() bool {
		n = countFDs(t)
		return n <= baseFDs
	})
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// procStat returns the state, parent pid and process group of every process in /proc.
func procStat(fn func(pid, state string, ppid, pgid int)) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		fn(e.Name(), f[0], ppid, pgid)
	}
}

func groupMembers(pgid int) []string {
	var out []string
	procStat(func(pid, state string, _, g int) {
		if g == pgid {
			out = append(out, pid+":"+state)
		}
	})
	return out
}

func zombies() []string {
	me := os.Getpid()
	var out []string
	procStat(func(pid, state string, ppid, _ int) {
		if state == "Z" && ppid == me {
			out = append(out, pid)
		}
	})
	return out
}
