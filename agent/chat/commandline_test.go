package chat

import (
	"bytes"
	"context"
	"testing"
)

// A line whose "/" is not followed by a name is an error about the name, not about arguments:
// it does not name an offset into arguments it never had.
func TestNoNameErrorNamesNoArguments(t *testing.T) {
	for line, want := range map[string]string{
		"/ hello":           `error: command line syntax error: command line "/ hello" has no command name after "/" (nothing sent)` + "\n",
		"/":                 `error: command line syntax error: command line "/" has no command name after "/" (nothing sent)` + "\n",
		`/review "unclosed`: `error: command /review: command line syntax error: unterminated double quote at byte offset 0 of the arguments "unclosed (nothing sent)` + "\n",
	} {
		var out, errOut bytes.Buffer
		c := &Chat{p: NewPrinter(&out, &errOut, false), reported: map[string]bool{}}
		if quit, _ := c.handle(context.Background(), line, nil); quit {
			t.Errorf("%q quits", line)
		}
		if errOut.String() != want {
			t.Errorf("%q:\n%q\nwant\n%q", line, errOut.String(), want)
		}
	}
}
