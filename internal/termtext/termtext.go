// Package termtext makes text from outside (a server's tool names and descriptions, a folder
// name, a model's words) safe to print in a terminal's line or table cell.
package termtext

import (
	"fmt"
	"strings"
)

// Cell returns s with each control character (a newline, a tab, an escape sequence's ESC, C1
// controls) written as its Go escape, so one entry stays one row and no sequence reaches the
// terminal. Other text is returned unchanged.
func Cell(s string) string {
	if !strings.ContainsFunc(s, IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if IsControl(r) {
			q := fmt.Sprintf("%q", string(r))
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// IsControl reports whether r is a control character Cell escapes (C0, DEL, C1).
func IsControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
