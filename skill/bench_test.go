package skill

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/fswatch"
)

// generateSkills writes n skills under root, shaped like the real corpus: name, description and
// license, every tenth with nested metadata (which takes the full YAML parser), and a body of
// about 1.5 KiB.
func generateSkills(tb testing.TB, root string, n int) {
	tb.Helper()
	body := strings.Repeat("Follow these steps carefully and report what you did.\n", 30)
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		front := fmt.Sprintf("name: %s\ndescription: Generated skill number %d. Use when the user asks for task %d, mentions topic %d, or works with files of kind %d.\nlicense: Apache-2.0\n", name, i, i, i%97, i%13)
		if i%10 == 0 {
			front += "metadata:\n  author: bench\n  version: \"1.0\"\n"
		}
		dir := filepath.Join(root, fmt.Sprintf("group-%02d", i%50), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD(front, body)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// baselineWalk is the direct baseline: a single-threaded filepath.WalkDir that opens every
// SKILL.md and reads its first 4 KiB, and nothing else.
func baselineWalk(root string) (files int) {
	buf := make([]byte, 4<<10)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "SKILL.md" {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		if _, err := io.ReadFull(f, buf); err == nil || err == io.ErrUnexpectedEOF {
			files++
		}
		f.Close()
		return nil
	})
	return files
}

// BenchmarkDiscover10k discovers 10,000 generated skills (metadata only) and, in the same run,
// the baseline walk reading the same files' first 4 KiB. It reports both in ms and their
// ratio (target ≤ 1.5). Discovery loads skills on up to GOMAXPROCS goroutines; the baseline is
// single-threaded, so discovery is also timed with GOMAXPROCS=1 (x-baseline-1cpu) to show the
// figure without that help.
func BenchmarkDiscover10k(b *testing.B) {
	const n = 10000
	root := b.TempDir()
	generateSkills(b, root, n)
	opts := &DiscoverOptions{MaxFolders: 2 * n}
	// Warm the page cache and check both sides see every skill.
	if got := baselineWalk(root); got != n {
		b.Fatalf("baseline read %d files", got)
	}
	if skills, diags := Discover([]string{root}, opts); len(skills) != n || len(diags) != 0 {
		b.Fatalf("discovered %d skills, %d diagnostics", len(skills), len(diags))
	}
	var disc, disc1, base time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		baselineWalk(root)
		t1 := time.Now()
		Discover([]string{root}, opts)
		t2 := time.Now()
		prev := runtime.GOMAXPROCS(1)
		Discover([]string{root}, opts)
		runtime.GOMAXPROCS(prev)
		t3 := time.Now()
		base += t1.Sub(t0)
		disc += t2.Sub(t1)
		disc1 += t3.Sub(t2)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
	b.ReportMetric(ms(disc), "discover-ms")
	b.ReportMetric(ms(disc1), "discover-1cpu-ms")
	b.ReportMetric(ms(base), "baseline-ms")
	b.ReportMetric(float64(disc)/float64(base), "x-baseline")
	b.ReportMetric(float64(disc1)/float64(base), "x-baseline-1cpu")
}

// BenchmarkHotReloadLatency measures, at the default 500 ms debounce, the time from writing a
// SKILL.md to the manager's skills_changed event, over 50 edits per iteration, and reports
// p50 and p99 (target p99 ≤ debounce + 100 ms). The baseline, in the same run, is the raw
// fswatch watcher on the same folder with the same debounce: write to callback.
func BenchmarkHotReloadLatency(b *testing.B) {
	const edits = 50
	debounce := DefaultDebounce
	root := b.TempDir()
	p := filepath.Join(root, "hot", "SKILL.md")
	write(b, root, "hot/SKILL.md", skillMD("name: hot\ndescription: Edit 0.\n", "Body"))

	measure := func(setup func(signal func()) (stop func())) []time.Duration {
		ch := make(chan time.Time, 16)
		stop := setup(func() {
			select {
			case ch <- time.Now():
			default:
			}
		})
		defer stop()
		var lat []time.Duration
		for i := range edits * b.N {
			start := time.Now()
			if err := os.WriteFile(p, []byte(skillMD(fmt.Sprintf("name: hot\ndescription: Edit %d.\n", i+1), "Body")), 0o644); err != nil {
				b.Fatal(err)
			}
			select {
			case at := <-ch:
				lat = append(lat, at.Sub(start))
			case <-time.After(20 * time.Second):
				b.Fatalf("edit %d: no event within 20 s", i)
			}
		}
		return lat
	}
	b.ResetTimer()
	base := measure(func(signal func()) func() {
		w, err := fswatch.New([]string{root}, &fswatch.Options{Debounce: debounce}, func([]string) { signal() })
		if err != nil {
			b.Fatal(err)
		}
		return func() { w.Close() }
	})
	ours := measure(func(signal func()) func() {
		m, err := NewManager(&Options{Roots: []string{root}, Watch: true, Debounce: debounce})
		if err != nil {
			b.Fatal(err)
		}
		m.Observe(func(ev ext.ChangeEvent) {
			if ev.Kind == ext.SkillsChanged {
				signal()
			}
		})
		return func() { m.Close(context.Background()) }
	})
	b.StopTimer()
	pct := func(l []time.Duration, q float64) float64 {
		s := slices.Clone(l)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(q*float64(len(s))))]) / 1e6
	}
	b.ReportMetric(pct(ours, 0.50), "p50-ms")
	b.ReportMetric(pct(ours, 0.99), "p99-ms")
	b.ReportMetric(pct(base, 0.50), "baseline-p50-ms")
	b.ReportMetric(pct(base, 0.99), "baseline-p99-ms")
	b.ReportMetric(pct(ours, 0.99)/pct(base, 0.99), "x-baseline-p99")
	b.ReportMetric(pct(ours, 0.99)/float64((debounce+100*time.Millisecond)/time.Millisecond), "x-target-p99")
}
