package termtext

import "testing"

func TestCell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain ünïcode", "plain ünïcode"},
		{"two\nlines\ttab", `two\nlines\ttab`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"c1\u009bcontrol", `c1\u009bcontrol`},
	} {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
