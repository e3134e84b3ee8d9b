package cmdline

import (
	"strings"
	"testing"
)

// BenchmarkExpand compares Expand on a typical command body with the direct baseline, a chain of
// strings.ReplaceAll calls for the same placeholders (which, unlike Expand, re-scans substituted
// values and knows no escape). The ratio is reported as x-baseline.
func BenchmarkExpand(b *testing.B) {
	body := strings.Repeat("Review the change in $1 with priority $2. Context: $ARGUMENTS. Price is \\$5.\n", 20)
	args := []string{"src/main.go", "high", "extra words here"}
	joined := strings.Join(args, " ")
	baseline := func() string {
		s := strings.ReplaceAll(body, "$ARGUMENTS", joined)
		s = strings.ReplaceAll(s, "$1", args[0])
		s = strings.ReplaceAll(s, "$2", args[1])
		return strings.ReplaceAll(s, `\$`, "$")
	}
	if out, _ := Expand(body, args); out != baseline() {
		b.Fatalf("Expand and baseline disagree:\n%q\n%q", out, baseline())
	}
	var base, ours float64
	b.Run("baseline-replaceall", func(b *testing.B) {
		for b.Loop() {
			_ = baseline()
		}
		base = float64(b.Elapsed()) / float64(b.N)
	})
	b.Run("expand", func(b *testing.B) {
		for b.Loop() {
			_, _ = Expand(body, args)
		}
		ours = float64(b.Elapsed()) / float64(b.N)
		if base > 0 {
			b.ReportMetric(ours/base, "x-baseline")
		}
	})
}
