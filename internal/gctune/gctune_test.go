package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100}, {8 * mib, 100}, {16 * mib, 100}, {32 * mib, 50}, {64 * mib, 25}, {640 * mib, 20},
	} {
		if got := Percent(c.live, 16*mib, 20); got != c.want {
			t.Errorf("Percent(%d MiB) = %d, want %d", c.live/mib, got, c.want)
		}
	}
}

// serve's defaults: a small heap (a few sessions, under 4 MiB live) keeps GOGC=100; the live
// heap of about a thousand idle sessions (24 MiB) may grow by a quarter of it, no more.
func TestDefaultsLeaveAQuarterAtAThousandSessions(t *testing.T) {
	const mib = 1 << 20
	if got := Percent(3*mib, DefaultHeadroom, DefaultFloor); got != 100 {
		t.Errorf("Percent(3 MiB) = %d, want 100", got)
	}
	if got := Percent(24*mib, DefaultHeadroom, DefaultFloor); got > 25 {
		t.Errorf("Percent(24 MiB) = %d, want at most 25", got)
	}
}

// With a live heap past the headroom, a collection lowers the percent; stop restores it.
func TestStartLowersPercentForALargeHeap(t *testing.T) {
	if v, set := os.LookupEnv("GOGC"); set {
		t.Setenv("GOGC", v)
		os.Unsetenv("GOGC")
	}
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	stop := Start(1<<20, 20)
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	testwait.For(t, "a collection to lower the GC percent", func() bool {
		runtime.GC()
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p < 100
	})
	runtime.KeepAlive(live)
	stop()
	stop()
	if p := debug.SetGCPercent(before); p != before {
		t.Errorf("percent %d after stop, want %d", p, before)
	}
}

// With $GOGC set, the operator's percent stands.
func TestStartLeavesGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	stop := Start(1, 20)
	defer stop()
	runtime.GC()
	runtime.GC()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("percent %d with $GOGC set, want 100", p)
	}
}
