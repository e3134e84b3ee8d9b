package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioStream is what a stdio server may write: one message per line, a batch, CRLF line
// ends, blank lines, a pretty-printed message over several lines, a last line without its
// newline.
const stdioStream = `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"message":"a\nb"}}` + "\r\n" + `

[{"jsonrpc":"2.0","id":"s1","method":"roots/list"},{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}]
{
  "jsonrpc": "2.0",
  "id": 2,
  "result": {"text": "{[\"not a bracket\""}
}
{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid params"}}`

// TestLineReaderAsTheSDK: a stdio stream read through LineReader and DecodeBatch gives the
// messages the go-sdk's stdio transport reads from it, in order.
func TestLineReaderAsTheSDK(t *testing.T) {
	want := sdkRead(t, stdioStream)
	var got []map[string]any
	lr := NewLineReader(strings.NewReader(stdioStream), mcp.DefaultMaxLineLength)
	for {
		line, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs, _, err := DecodeBatch(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		for _, m := range msgs {
			got = append(got, describe(m.SDK()))
		}
	}
	if len(want) != 6 {
		t.Fatalf("the go-sdk read %d messages, want 6", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-go-sdk +wire)\n%s", diff)
	}
}

// sdkRead returns the messages the go-sdk's stdio transport reads from stream.
func sdkRead(t *testing.T, stream string) []map[string]any {
	t.Helper()
	ctx := context.Background()
	conn, err := (&mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(stream)), Writer: nopWriteCloser{io.Discard}}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out []map[string]any
	for {
		msg, err := conn.Read(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("go-sdk read: %v", err)
		}
		out = append(out, describe(msg))
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// TestLineReaderErrors: garbage is a parse error with the line, an unfinished value at the end
// io.ErrUnexpectedEOF, a line over the limit ErrFrameTooLarge.
func TestLineReaderErrors(t *testing.T) {
	line, err := NewLineReader(strings.NewReader("hello\n"), 100).Next()
	if !errors.Is(err, ErrParse) || string(line) != "hello" {
		t.Errorf("garbage: %q, %v", line, err)
	}
	if _, err := NewLineReader(strings.NewReader("{\"a\":\n[1,\n"), 100).Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut off: %v", err)
	}
	if _, err := NewLineReader(strings.NewReader(strings.Repeat("x", 200)+"\n"), 100).Next(); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("too long: %v", err)
	}
	if _, err := NewLineReader(strings.NewReader("\n\n"), 100).Next(); !errors.Is(err, io.EOF) {
		t.Errorf("blank: %v", err)
	}
}

// TestAppendLineAsTheSDK: a pretty-printed message written with AppendLine is one line the
// go-sdk reads as the message.
func TestAppendLineAsTheSDK(t *testing.T) {
	msg := []byte("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"tools/call\",\n  \"params\": {\"s\": \"a\\nb\"}\n}")
	line, err := AppendLine(nil, msg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(line, []byte{'\n'}) != 1 || line[len(line)-1] != '\n' {
		t.Fatalf("not one line: %q", line)
	}
	want := jsonrpc.Request{Method: "tools/call", Params: []byte(`{"s":"a\nb"}`)}
	want.ID, _ = jsonrpc.MakeID(float64(1))
	if diff := cmp.Diff([]map[string]any{describe(&want)}, sdkRead(t, string(line))); diff != "" {
		t.Errorf("(-want +go-sdk)\n%s", diff)
	}
	if _, err := AppendLine(nil, []byte("{\n")); !errors.Is(err, ErrParse) {
		t.Errorf("AppendLine of broken JSON: %v", err)
	}
}
