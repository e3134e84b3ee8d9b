package toolsearch

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/threadcpu"
)

// syntheticBed returns about n tool docs, per server: the test bed's tools replicated under
// new server names, each copy's names and descriptions varied with words drawn from the whole
// bed, so that words are spread as in a large real view rather than repeated verbatim.
func syntheticBed(t testing.TB, n int) map[string][]Doc {
	t.Helper()
	bedServers := bedDocs(loadBed(t))
	var vocab []string
	for _, docs := range bedServers {
		for _, d := range docs {
			vocab = append(vocab, strings.Fields(d.Description)...)
		}
	}
	slices.Sort(vocab)
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strings.Trim(vocab[rng.IntN(len(vocab))], ".,:;()`'\"") }
	out := map[string][]Doc{}
	servers := slices.Sorted(func(yield func(string) bool) {
		for s := range bedServers {
			if s != "" && !yield(s) {
				return
			}
		}
	})
	total := 0
	for copyN := 0; total < n; copyN++ {
		for _, s := range servers {
			name := fmt.Sprintf("%s-%d", s, copyN)
			for _, d := range bedServers[s] {
				if total == n {
					break
				}
				d.Name = pick() + "_" + d.Name
				d.Key = name + "__" + d.Name
				d.Description = d.Description + " " + pick() + " " + pick() + " " + pick()
				out[name] = append(out[name], d)
				total++
			}
		}
	}
	return out
}

func indexOf(servers map[string][]Doc) *Index {
	ix := New()
	for s, docs := range servers {
		ix = ix.With(s, docs)
	}
	return ix
}

// timer collects the times of one kind of search: on the wall clock, and in CPU time of the
// searching thread (which other processes on a busy machine do not inflate).
type timer struct{ wall, cpu []time.Duration }

// time runs search(q) and records how long it took.
func (t *timer) time(search func(string) []Hit, q string) {
	c0, ok0 := threadcpu.Now()
	start := time.Now()
	search(q)
	t.wall = append(t.wall, time.Since(start))
	if c1, ok1 := threadcpu.Now(); ok0 && ok1 {
		t.cpu = append(t.cpu, c1-c0)
	}
}

// p99 returns the 99th percentile of ds (0 for none).
func p99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)*99/100]
}

// BenchmarkSearch5000 searches 5,000 tools (the test bed's tools replicated over 344 servers
// with varied names and descriptions) with the labelled requests, each request also through
// plain BM25 over name and description on the same docs, and reports both rankers' 99th
// percentiles, on the wall clock and in the searching thread's CPU time, and their ratios. The
// target is a p99 of at most 1 ms.
func BenchmarkSearch5000(b *testing.B) {
	ix := indexOf(syntheticBed(b, 5000))
	if ix.Len() != 5000 {
		b.Fatalf("index holds %d docs", ix.Len())
	}
	var queries []string
	for _, r := range loadRequests(b) {
		queries = append(queries, r.Request)
	}
	base := newPlainBM25(allDocs(ix))
	ours := func(q string) []Hit { return ix.Search(q, Options{}) }
	plain := func(q string) []Hit { return base.search(q, defaultLimit) }
	ours(queries[0]) // the first search of an index merges its servers' words
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var o, p timer
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)]
		o.time(ours, q)
		p.time(plain, q)
	}
	ow, oc, pw, pc := p99(o.wall), p99(o.cpu), p99(p.wall), p99(p.cpu)
	b.ReportMetric(float64(ow.Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(oc.Nanoseconds()), "p99-cpu-ns")
	b.ReportMetric(float64(pw.Nanoseconds()), "plain-p99-ns")
	b.ReportMetric(float64(pc.Nanoseconds()), "plain-p99-cpu-ns")
	b.ReportMetric(float64(ow)/float64(max(pw, 1)), "p99-ratio")
	if pc > 0 {
		b.ReportMetric(float64(oc)/float64(pc), "p99-cpu-ratio")
	}
}

// BenchmarkWith5000 replaces one server's docs in an index of 5,000 (With), beside building
// the whole index again: With costs what the one server costs, not what the index holds. The
// first search of the new index also merges the servers' word lists (shared, not rebuilt).
func BenchmarkWith5000(b *testing.B) {
	servers := syntheticBed(b, 5000)
	ix := indexOf(servers)
	one := servers["memory-0"]
	b.Run("with-one", func(b *testing.B) {
		for b.Loop() {
			ix.With("memory-0", one)
		}
	})
	b.Run("with-one-then-search", func(b *testing.B) {
		for b.Loop() {
			ix.With("memory-0", one).Search("remember that Alice works at Acme", Options{})
		}
	})
	b.Run("rebuild-all", func(b *testing.B) {
		for b.Loop() {
			indexOf(servers)
		}
	})
}
