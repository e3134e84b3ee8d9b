package connpool

import (
	"testing/synctest"
	"time"
)

// advance moves a synctest bubble's fake clock on by d, at once, and returns when every
// goroutine of the bubble is blocked again.
func advance(d time.Duration) {
	time.Sleep(d) // in a bubble: no real wait
	synctest.Wait()
}
