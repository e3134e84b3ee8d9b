package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The stdio transport of MCP carries one JSON-RPC message (or batch) per line, delimited by
// newlines, the messages themselves holding none.

// ErrFrameTooLarge reports a message longer than the reader's limit.
var ErrFrameTooLarge = errors.New("JSON-RPC frame too large")

// LineReader reads the newline-delimited messages of a stdio stream. A line that is the
// beginning of a JSON object or array that continues on the next lines (a server that
// pretty-prints) is joined with them, up to the limit, as the go-sdk's streaming decoder
// reads such a value; blank lines are skipped.
type LineReader struct {
	br  *bufio.Reader
	max int
}

// NewLineReader returns a reader of r's messages, each at most max bytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next message: one complete JSON value, which is the caller's to keep. At
// the end of the stream it returns io.EOF, or io.ErrUnexpectedEOF within a value. A line that
// is not JSON is returned with an error wrapping ErrParse; one longer than the limit is an
// error wrapping ErrFrameTooLarge.
func (r *LineReader) Next() ([]byte, error) {
	var pending []byte // an incomplete value, joined with the next line
	var open nesting   // pending's brackets not yet closed
	for {
		line, err := r.line(r.max - len(pending))
		if err != nil {
			if errors.Is(err, io.EOF) && len(pending) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if pending != nil {
			open.scan(line)
			line = append(append(pending, '\n'), line...)
			pending = nil
			if open.depth > 0 && len(line) < r.max {
				// Still open: not parsed again until it closes, so that a value printed over
				// many lines is read in linear time.
				pending = line
				continue
			}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if json.Valid(line) {
			return line, nil
		}
		if open.depth == 0 && incomplete(line) && len(line) < r.max {
			pending = line
			open = nesting{}
			open.scan(line)
			continue
		}
		return line, fmt.Errorf("%w: %.200q", ErrParse, line)
	}
}

// line returns the next line without its newline, at most limit bytes; the slice is the
// caller's to keep.
func (r *LineReader) line(limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.br.ReadSlice('\n')
		if len(line)+len(frag) > limit+1 {
			return nil, fmt.Errorf("%w: over the maximum of %d bytes", ErrFrameTooLarge, r.max)
		}
		if err == nil {
			if line == nil {
				return bytes.Clone(frag[:len(frag)-1]), nil
			}
			return append(line, frag[:len(frag)-1]...), nil
		}
		if err != bufio.ErrBufferFull {
			if len(line)+len(frag) > 0 && err == io.EOF {
				return append(line, frag...), nil // a last message without its newline
			}
			return nil, err
		}
		line = append(line, frag...)
	}
}

// incomplete reports whether line looks like the start of a JSON value that continues on the
// next line (an object or array not yet closed), rather than garbage.
func incomplete(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	var v any
	err := json.Unmarshal(t, &v)
	var se *json.SyntaxError
	return err != nil && (errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &se) && se.Offset >= int64(len(t))))
}

// nesting follows the brackets of a JSON text across the lines it is read in.
type nesting struct {
	depth   int  // objects and arrays open
	str     bool // inside a string
	escaped bool // after a backslash in a string
}

func (n *nesting) scan(b []byte) {
	for _, ch := range b {
		switch {
		case n.escaped:
			n.escaped = false
		case n.str:
			switch ch {
			case '\\':
				n.escaped = true
			case '"':
				n.str = false
			}
		case ch == '"':
			n.str = true
		case ch == '{' || ch == '[':
			n.depth++
		case ch == '}' || ch == ']':
			n.depth--
		}
	}
}

// AppendLine appends msg (one message with no newline in it) and the newline that ends it.
// A message holding newlines (pretty-printed JSON) is compacted first; one that is not
// JSON is an error wrapping ErrParse.
func AppendLine(b, msg []byte) ([]byte, error) {
	if bytes.ContainsAny(msg, "\r\n") {
		var c bytes.Buffer
		if err := json.Compact(&c, msg); err != nil {
			return b, fmt.Errorf("%w: %w", ErrParse, err)
		}
		msg = c.Bytes()
	}
	return append(append(b, msg...), '\n'), nil
}
