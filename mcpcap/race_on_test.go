//go:build race

package mcpcap

// raceEnabled reports whether the race detector is on: it allocates, so allocation counts
// mean nothing under it.
const raceEnabled = true
