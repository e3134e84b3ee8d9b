package endpoint

import "testing"

func TestShown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://api.example.com/v1", "https://api.example.com/v1"},
		{"https://user:secret@proxy.example/v1?key=sk-1&x=2#frag", "https://proxy.example/v1?key=…&x=…"},
		{"https://h/v1?sk-lonely", "https://h/v1?…"},
		{"http://[::1:bad", "(an unparsable URL)"},
	} {
		if got := Shown(c.in); got != c.want {
			t.Errorf("Shown(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
