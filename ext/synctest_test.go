package ext

import "time"

// sleepInBubble blocks for d on a synctest bubble's fake clock: it returns once every other
// goroutine of the bubble is blocked and the clock has moved on by d, with no real wait.
func sleepInBubble(d time.Duration) {
	time.Sleep(d) // in a bubble: no real wait
}
