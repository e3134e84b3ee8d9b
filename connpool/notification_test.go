package connpool

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// tapAll passes stream through an sseTapBody that reads at most chunk bytes at a time and
// returns the params of the progress notifications it delivered, and what it passed on.
func tapAll(t *testing.T, stream string, chunk int) (delivered []string, passed string) {
	t.Helper()
	var r io.Reader = strings.NewReader(stream)
	if chunk > 0 {
		r = &chunkReader{r: r, n: chunk}
	}
	b := &sseTapBody{ReadCloser: io.NopCloser(r), deliver: func(_ string, p json.RawMessage) { delivered = append(delivered, string(p)) }}
	out, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	return delivered, string(out)
}

type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

func progressEvent(token string) string {
	return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + token + `","progress":1}}`
}

func TestSSETapFindsProgressAsTheSDKFramesIt(t *testing.T) {
	big := strings.Repeat("x", maxTappedEvent+10)
	stream := strings.Join([]string{
		": a comment",
		"id: 1",
		"data: " + progressEvent("a"), // unnamed event: a message
		"",
		"event: message\r",
		"data: " + progressEvent("b") + "\r", // CRLF lines
		"\r",
		"event: ping",
		"data: " + progressEvent("named-other"), // not a message: the SDK ignores it
		"",
		"data: {\"jsonrpc\":\"2.0\",", // data split over lines, joined by LF
		"data: \"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"c\",\"progress\":2}}",
		"",
		"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"notifications/progress\",\"params\":{}}", // a call, not a notification
		"",
		"data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + big + "\"}]}}", // too big to matter
		"data: " + progressEvent("inside-big"),
		"",
		"data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"text\":\"notifications/progress\"}}", // a result that mentions it
		"",
		"data: " + progressEvent("d"), // at EOF without a blank line: the SDK still yields it
	}, "\n")
	want := []string{
		`{"progressToken":"a","progress":1}`,
		`{"progressToken":"b","progress":1}`,
		`{"progressToken":"c","progress":2}`,
		`{"progressToken":"d","progress":1}`,
	}
	for _, chunk := range []int{0, 1, 2, 3, 7, 64, 4096} {
		got, passed := tapAll(t, stream, chunk)
		if !slices.Equal(got, want) {
			t.Errorf("chunks of %d: delivered %q, want %q", chunk, got, want)
		}
		if passed != stream {
			t.Errorf("chunks of %d: the tap changed the stream", chunk)
		}
	}
}

func TestSSETapPassesErrorsOn(t *testing.T) {
	b := &sseTapBody{ReadCloser: io.NopCloser(iotest.ErrReader(io.ErrUnexpectedEOF)), deliver: func(string, json.RawMessage) { t.Error("delivered from nothing") }}
	if _, err := b.Read(make([]byte, 8)); err != io.ErrUnexpectedEOF {
		t.Fatalf("err = %v", err)
	}
}

// The tap sits on every event stream: an event that is not progress costs it no allocation.
func TestSSETapDoesNotAllocatePerEvent(t *testing.T) {
	stream := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	r := bytes.NewReader(stream)
	b := &sseTapBody{ReadCloser: io.NopCloser(r), deliver: func(string, json.RawMessage) { t.Error("delivered a result") }}
	buf := make([]byte, len(stream))
	read := func() {
		r.Reset(stream)
		if _, err := io.ReadFull(b, buf); err != nil {
			t.Fatal(err)
		}
	}
	read() // the tap's buffers grow once
	if n := testing.AllocsPerRun(100, read); n != 0 {
		t.Errorf("%v allocations per event, want 0", n)
	}
}
