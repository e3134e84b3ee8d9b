package proctune

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestPolicy(t *testing.T) {
	ms := time.Millisecond
	p := NewPolicy(Config{}, 4)
	steps := []struct {
		used time.Duration
		want int
	}{
		{10 * ms, 1}, {74 * ms, 1}, // under 75 % of one processor: stays on one
		{75 * ms, 4},               // at it: every processor
		{39 * ms, 4}, {39 * ms, 4}, // calm, but not for long enough
		{41 * ms, 4}, // a busy interval starts the count again
	}
	for range 9 {
		steps = append(steps, struct {
			used time.Duration
			want int
		}{5 * ms, 4})
	}
	steps = append(steps, struct {
		used time.Duration
		want int
	}{5 * ms, 1}) // the tenth calm interval in a row: back to one
	for i, s := range steps {
		if got := p.Next(s.used, DefaultInterval); got != s.want {
			t.Fatalf("step %d: Next(%v) = %d, want %d", i, s.used, got, s.want)
		}
	}
}

// fakeProcess is a process whose CPU clock a test advances, and the processors set on it.
// While held, a reading of its clock waits for the test to let it go. limit is its CPU
// limit in processors (0: none).
type fakeProcess struct {
	mu    sync.Mutex
	cpu   time.Duration
	procs []int
	held  chan struct{}
	limit float64
	reads int // readings of the clock
}

func (f *fakeProcess) readings() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

// process is the fake as a tuning sees it, with a default of procs processors.
func (f *fakeProcess) process(procs int) process {
	return process{procs: procs, cpu: f.read, limit: f.readLimit, set: f.set}
}

func (f *fakeProcess) readLimit() (float64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.limit, f.limit > 0
}

func (f *fakeProcess) read() (time.Duration, bool) {
	f.mu.Lock()
	f.reads++
	held := f.held
	f.mu.Unlock()
	if held != nil {
		<-held
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cpu, true
}

// hold makes readings of the clock wait until the function it returns is called.
func (f *fakeProcess) hold() (release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = make(chan struct{})
	held := f.held
	return func() {
		f.mu.Lock()
		f.held = nil
		f.mu.Unlock()
		close(held)
	}
}

func (f *fakeProcess) set(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.procs = append(f.procs, n)
}

func (f *fakeProcess) use(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cpu += d
}

func (f *fakeProcess) sets() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.procs...)
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A tuned process starts on one processor, moves to Go's default (0) in the interval after a
// busy one, back after a calm second, and gets Go's default at stop; a second Start meanwhile
// does nothing.
func TestStartFollowsTheCPUUsed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeProcess{}
		stop := start(Config{}, f.process(2))
		defer stop() // a failure below still ends the tuning, and frees it for the next test
		if got := f.sets(); !equal(got, []int{1}) {
			t.Fatalf("after start: processors set %v, want [1]", got)
		}
		other := &fakeProcess{}
		start(Config{}, other.process(2))()
		if got := other.sets(); len(got) != 0 {
			t.Fatalf("a second tuning set processors %v while the first ran", got)
		}

		time.Sleep(DefaultInterval / 2)
		f.use(90 * time.Millisecond) // 90 % of one processor in the first interval
		time.Sleep(DefaultInterval)
		synctest.Wait()
		if got := f.sets(); !equal(got, []int{1, 0}) {
			t.Fatalf("after a busy interval: processors set %v, want [1 0]", got)
		}

		time.Sleep(DefaultCalm * DefaultInterval) // idle: ten calm intervals
		synctest.Wait()
		if got := f.sets(); !equal(got, []int{1, 0, 1}) {
			t.Fatalf("after a calm second: processors set %v, want [1 0 1]", got)
		}
		stop()
		stop()
		if got := f.sets(); !equal(got, []int{1, 0, 1, 0}) {
			t.Fatalf("after stop: processors set %v, want [1 0 1 0]", got)
		}
	})
}

// With a default of one processor there is nothing to tune.
func TestStartOnOneProcessorDoesNothing(t *testing.T) {
	f := &fakeProcess{}
	start(Config{}, f.process(1))()
	if got := f.sets(); len(got) != 0 {
		t.Fatalf("processors set %v on a one-processor default", got)
	}
}

// $GOMAXPROCS is the user's choice: Start leaves the processors as they are.
// (GOMAXPROCS is 2 here whatever the machine, as the variable would make it, so that a tuning
// that ran would show: it would set 1.)
func TestStartKeepsGOMAXPROCSFromTheEnvironment(t *testing.T) {
	t.Setenv("GOMAXPROCS", "2")
	defer runtime.SetDefaultGOMAXPROCS()
	runtime.GOMAXPROCS(2)
	stop := Start(Config{})
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("GOMAXPROCS %d after Start with $GOMAXPROCS set, want 2", got)
	}
	stop()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("GOMAXPROCS %d after stop with $GOMAXPROCS set, want 2", got)
	}
}

// In a real process: Start moves it to one processor (when Go's default is more), stop gives
// back the default.
func TestStartAndStopInThisProcess(t *testing.T) {
	if v, set := os.LookupEnv("GOMAXPROCS"); set {
		t.Setenv("GOMAXPROCS", v)
		os.Unsetenv("GOMAXPROCS")
	}
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	stop := Start(Config{Interval: time.Hour})
	want := 1
	if _, ok := cpuTime(); !ok {
		want = def
	}
	if got := runtime.GOMAXPROCS(0); got != want {
		t.Errorf("GOMAXPROCS %d after Start, want %d (default %d)", got, want, def)
	}
	stop()
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Errorf("GOMAXPROCS %d after stop, want the default %d", got, def)
	}
}

// A move to more processors gives the process Go's default (0), not the number found at Start:
// the runtime then keeps following the CPU limit and affinity, which change while serve runs.
func TestMovingUpGivesGoTheDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeProcess{}
		stop := start(Config{}, f.process(4))
		defer stop()
		synctest.Wait()        // the tuner has read the CPU time at its start
		f.use(DefaultInterval) // a whole processor in the first interval
		time.Sleep(DefaultInterval)
		synctest.Wait()
		if got := f.sets(); !equal(got, []int{1, 0}) {
			t.Fatalf("after a busy interval: processors set %v, want [1 0] (one, then Go's default)", got)
		}
	})
}

// The share of a processor is the CPU time over the time it was used in, not over Interval:
// a reading that comes late (ticks dropped while the process was throttled or stopped) does
// not count several intervals' CPU as one's.
func TestALateReadingIsAShareOfTheTimeItCovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeProcess{}
		stop := start(Config{}, f.process(2))
		defer stop()
		synctest.Wait() // the tuner has read the CPU time at its start
		release := f.hold()
		for range 3 {
			time.Sleep(DefaultInterval)
			f.use(DefaultInterval * 4 / 10) // 40 % of one processor, under Up
		}
		release()
		synctest.Wait()
		if got := f.sets(); !equal(got, []int{1}) {
			t.Fatalf("after three intervals at 40 %%, read late: processors set %v, want [1]", got)
		}
	})
}

// Under a CPU limit of one processor or less (Go's default is then two), more processors
// cannot give the process more CPU time, only the wake-ups one processor saves: a busy
// process stays on one. Above one processor, it moves. (Under a limit of half a processor an
// interval can still see 90 % of one: one that spans the end of one period of the limit and
// the start of the next.)
func TestALimitOfOneProcessorKeepsTheProcessOnOne(t *testing.T) {
	for _, c := range []struct {
		limit float64
		want  []int
	}{{0.5, []int{1}}, {1, []int{1}}, {1.5, []int{1, 0}}, {0, []int{1, 0}}} {
		t.Run(fmt.Sprint("limit ", c.limit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fakeProcess{limit: c.limit}
				stop := start(Config{}, f.process(2))
				defer stop()
				synctest.Wait() // the tuner has read the CPU time at its start
				for range 3 {
					f.use(DefaultInterval * 9 / 10) // 90 % of one processor, all the limit allows
					time.Sleep(DefaultInterval)
				}
				synctest.Wait()
				if got := f.sets(); !equal(got, c.want) {
					t.Errorf("busy: processors set %v, want %v", got, c.want)
				}
			})
		})
	}
}

// stop ends the tuning before it gives back Go's default: a move in flight when stop is called
// ends first, and the default is the last thing set.
func TestStopWaitsForAMoveInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeProcess{}
		entered, leave := make(chan struct{}), make(chan struct{})
		proc := f.process(2)
		var defaults atomic.Int32
		proc.set = func(n int) {
			if n == 0 && defaults.Add(1) == 1 { // the move up
				close(entered)
				<-leave
			}
			f.set(n)
		}
		stop := start(Config{}, proc)
		synctest.Wait()
		f.use(DefaultInterval)
		<-entered
		stopped := make(chan struct{})
		go func() {
			stop()
			close(stopped)
		}()
		synctest.Wait()
		select {
		case <-stopped:
			t.Fatal("stop returned while a move was in flight")
		default:
		}
		close(leave)
		<-stopped
		if got := f.sets(); !equal(got, []int{1, 0, 0}) {
			t.Fatalf("processors set %v, want [1 0 0]: the move, then the default at stop", got)
		}
	})
}

// An idle process on one processor is read twice as late each time, up to IdleInterval, not
// every Interval; a busy reading brings back Interval, and the one after a busy interval moves
// it to every processor.
func TestAnIdleProcessIsReadLessOften(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeProcess{}
		stop := start(Config{}, f.process(2))
		defer stop()
		synctest.Wait() // the tuning's first reading, at the start, is not counted
		start := f.readings()

		// Idle for 10 s: readings after 0.1, 0.2, 0.4, 0.8, then 1 s each (0.1+0.2+0.4+0.8 =
		// 1.5 s, then 8 more by 9.5 s): 12, where every Interval would be 100.
		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		if got := f.readings() - start; got != 12 {
			t.Fatalf("%d readings in 10 idle seconds, want 12", got)
		}

		// A burst between two readings a second apart: the first reading after it sees 50 %,
		// not enough to move, but brings back Interval; the next sees a busy interval.
		time.Sleep(500 * time.Millisecond) // 0.5 s before the next reading (at 10.5 s)
		f.use(500 * time.Millisecond)
		time.Sleep(time.Millisecond) // the reading at 10.5 s: 500 ms of 1 s
		synctest.Wait()
		if got := f.sets(); !equal(got, []int{1}) {
			t.Fatalf("after a reading at 50 %%: processors set %v, want [1]", got)
		}
		f.use(80 * time.Millisecond)
		time.Sleep(DefaultInterval)
		synctest.Wait()
		if got := f.sets(); !equal(got, []int{1, 0}) {
			t.Fatalf("after a busy interval: processors set %v, want [1 0]", got)
		}
	})
}
