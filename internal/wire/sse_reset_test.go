package wire

import (
	"io"
	"strings"
	"testing"
)

// A reader Reset onto a second stream reads that stream's events from its start, nothing of
// the first one's, and the Data of an event of the first stream is left as it was.
func TestEventReaderReset(t *testing.T) {
	r := NewEventReader(strings.NewReader("data: one\n\ndata: left over\n\n"), 0)
	first, err := r.Next()
	if err != nil || string(first.Data) != "one" {
		t.Fatalf("first stream: %q, %v", first.Data, err)
	}
	r.Reset(strings.NewReader("data: two\n\n"))
	second, err := r.Next()
	if err != nil || string(second.Data) != "two" {
		t.Fatalf("second stream: %q, %v", second.Data, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the second stream's event: %v, want io.EOF", err)
	}
	if string(first.Data) != "one" {
		t.Fatalf("the first stream's event now holds %q", first.Data)
	}
}
