package connpool

import (
	"slices"
	"strings"
	"testing"
)

// A log message (or progress notification) bigger than maxTappedEvent is still delivered: it
// is told from a large result by the method its beginning names, and only then buffered
// whole (up to the SDK's own event limit). Without this, an HTTP server's large log message
// reached nobody: the SDK's handler does not deliver log messages, the tap does.
func TestSSETapDeliversLargeLogMessage(t *testing.T) {
	text := strings.Repeat("y", 2*maxTappedEvent)
	logMsg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + text + `"}}`
	big := strings.Repeat("x", maxTappedEvent+10)
	stream := strings.Join([]string{
		"data: " + logMsg,
		"",
		"data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + big + "\"}]}}", // a large result: passed over
		"",
		"data: " + progressEvent("after"),
		"",
	}, "\n")
	want := []string{`{"level":"info","data":"` + text + `"}`, `{"progressToken":"after","progress":1}`}
	for _, chunk := range []int{0, 7, 4096, 32 << 10} {
		got, passed := tapAll(t, stream, chunk)
		if !slices.Equal(got, want) {
			short := make([]string, len(got))
			for i, g := range got {
				short[i] = g[:min(len(g), 60)]
			}
			t.Errorf("chunks of %d: delivered %d messages %q, want the large log message and the progress", chunk, len(got), short)
		}
		if passed != stream {
			t.Errorf("chunks of %d: the tap changed the stream", chunk)
		}
	}
}
