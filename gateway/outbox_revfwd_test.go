package gateway

import (
	"testing"
)

// A client that falls behind is reported when its notifications start being dropped, not
// only when its session ends (which may be hours later, or never before a crash).
func TestOutboxDropReportedAtOnce(t *testing.T) {
	var reported []int
	o := &outbox{onDrop: func(n int) { reported = append(reported, n) }}
	release := make(chan struct{})
	o.send(0, func() { <-release }) // the sender is stuck on the first
	for range maxOutbox + 10 {
		o.send(0, func() {})
	}
	if len(reported) != 1 {
		t.Errorf("drops reported %d times while the client is behind, want once: %v", len(reported), reported)
	}
	close(release)
	o.close()
}
