package plugin

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFuzzRewrite measures what the manifest and marketplace fuzz targets pay per input
// to put it in their file: rewrite, in place, against the baseline os.WriteFile (truncate to
// nothing, then write), run in the same benchmark. ratio is rewrite's time over WriteFile's.
func BenchmarkFuzzRewrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "plugin.json")
	data := []byte(`{"name":"demo","version":"1.2.0","description":"A Claude Code plugin for the tests"}`)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	var inPlace, truncated time.Duration
	for i := 0; b.Loop(); i++ {
		d := data[:len(data)-i%7] // the inputs differ in length, as the fuzzer's do
		start := time.Now()
		rewrite(b, path, d)
		inPlace += time.Since(start)
		start = time.Now()
		if err := os.WriteFile(path, d, 0o644); err != nil {
			b.Fatal(err)
		}
		truncated += time.Since(start)
	}
	b.ReportMetric(float64(inPlace.Nanoseconds())/float64(b.N), "rewrite-ns/op")
	b.ReportMetric(float64(truncated.Nanoseconds())/float64(b.N), "writefile-ns/op")
	b.ReportMetric(float64(inPlace)/float64(truncated), "ratio")
}
