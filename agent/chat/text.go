package chat

import "github.com/agentpool/agentpool/internal/termtext"

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\r' {
			r = r[:i]
			break
		}
	}
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}

// cell makes s safe for one line or table cell (termtext.Cell).
var cell = termtext.Cell
