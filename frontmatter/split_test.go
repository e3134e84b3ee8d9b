package frontmatter

import "testing"

func TestSplit(t *testing.T) {
	tests := []struct {
		name           string
		data           string
		yaml, body     string
		bodyLine       int
		opened, closed bool
	}{
		{"block", "---\nname: a\n---\nbody\n", "name: a\n", "body\n", 4, true, true},
		{"BOM", "\uFEFF---\nname: a\n---\nbody", "name: a\n", "body", 4, true, true},
		{"CRLF", "---\r\nname: a\r\n---\r\nbody\r\n", "name: a\r\n", "body\r\n", 4, true, true},
		{"lone CR", "---\rname: a\r---\rbody\r", "name: a\r", "body\r", 4, true, true},
		{"lone CR then CRLF", "---\r\rk: v\r\n---\r\nb", "\rk: v\r\n", "b", 5, true, true},
		{"trailing blanks on fences", "--- \t\nk: v\n---  \nb", "k: v\n", "b", 4, true, true},
		{"empty block", "---\n---\n", "", "", 3, true, true},
		{"closing fence ends the file", "---\nk: v\n---", "k: v\n", "", 4, true, true},
		{"no block", "# Title\n---\nk: v\n---\n", "", "# Title\n---\nk: v\n---\n", 1, false, false},
		{"BOM, no block", "\uFEFFtext", "", "text", 1, false, false},
		{"unclosed", "---\nk: v\nbody\n", "", "---\nk: v\nbody\n", 1, true, false},
		{"fence alone", "---", "", "---", 1, true, false},
		{"four dashes are not a fence", "----\nk: v\n----\n", "", "----\nk: v\n----\n", 1, false, false},
		{"empty", "", "", "", 1, false, false},
	}
	for _, tt := range tests {
		b := Split([]byte(tt.data))
		if string(b.YAML) != tt.yaml || string(b.Body) != tt.body || b.BodyLine != tt.bodyLine || b.Opened != tt.opened || b.Closed != tt.closed {
			t.Errorf("%s: Split(%q) = yaml %q body %q line %d opened %v closed %v; want %q %q %d %v %v", tt.name, tt.data,
				b.YAML, b.Body, b.BodyLine, b.Opened, b.Closed, tt.yaml, tt.body, tt.bodyLine, tt.opened, tt.closed)
		}
	}
}

func TestNormalizeNewlines(t *testing.T) {
	for in, want := range map[string]string{"a\r\nb\rc\n": "a\nb\nc\n", "plain\n": "plain\n", "\r\r\n": "\n\n"} {
		if got := string(NormalizeNewlines([]byte(in))); got != want {
			t.Errorf("NormalizeNewlines(%q) = %q, want %q", in, got, want)
		}
	}
}
