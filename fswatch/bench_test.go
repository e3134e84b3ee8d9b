package fswatch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkLatency measures the time from a write to the callback reporting it, at the default
// 500 ms debounce. The baseline is the debounce itself: the watcher cannot call back earlier, so
// the figure of merit is p99-minus-debounce-ms (target ≤ 100 ms).
//
// Each iteration runs 5 rounds of 10 edits (distinct files written back to back), so even
// -benchtime=1x measures 50 edits in about 3 s.
func BenchmarkLatency(b *testing.B) {
	const (
		debounce       = DefaultDebounce
		roundsPerIter  = 5
		editsPerRound  = 10
		roundWaitLimit = 20 * time.Second
	)
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var (
		mu      sync.Mutex
		written = map[string]time.Time{}
		lat     []time.Duration
		got     = make(chan struct{}, 1)
	)
	w, err := New([]string{root}, &Options{Debounce: debounce}, func(changed []string) {
		now := time.Now()
		mu.Lock()
		for _, p := range changed {
			if t0, ok := written[p]; ok {
				lat = append(lat, now.Sub(t0))
				delete(written, p)
			}
		}
		mu.Unlock()
		select {
		case got <- struct{}{}:
		default:
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()

	b.ResetTimer()
	for i := range b.N {
		for round := range roundsPerIter {
			for k := range editsPerRound {
				p := filepath.Join(root, fmt.Sprintf("f%d.md", k))
				mu.Lock()
				written[p] = time.Now()
				mu.Unlock()
				if err := os.WriteFile(p, []byte(fmt.Sprint(i, round)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			deadline := time.After(roundWaitLimit)
			for {
				mu.Lock()
				left := len(written)
				mu.Unlock()
				if left == 0 {
					break
				}
				select {
				case <-got:
				case <-deadline:
					b.Fatalf("round %d: %d edits never reported", round, left)
				}
			}
		}
	}
	b.StopTimer()

	slices.Sort(lat)
	pct := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	p50, p99 := pct(0.50), pct(0.99)
	b.ReportMetric(float64(len(lat)), "edits")
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(debounce), "debounce-ms")
	b.ReportMetric(ms(p99-debounce), "p99-minus-debounce-ms")
	b.ReportMetric(float64(p99)/float64(debounce), "x-baseline")
}
