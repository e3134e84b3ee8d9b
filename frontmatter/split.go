package frontmatter

import "bytes"

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Block is a file split at its frontmatter fences. YAML and Body are sub-slices of the data given
// to Split, line ends as written.
type Block struct {
	// YAML is the text between the fences, without them; nil unless Closed.
	YAML []byte
	// Body is what follows the closing fence; when the block is absent or not closed it is the
	// whole file without its byte order mark, so that the caller may read it all as Markdown.
	Body []byte
	// BodyLine is the 1-based file line where Body starts.
	BodyLine int
	// Opened reports that the first line is a "---" fence.
	Opened bool
	// Closed reports that a second "---" fence follows the first.
	Closed bool
}

// Split finds the frontmatter of data: an opening "---" on the first line (after an optional
// UTF-8 byte order mark) and the next "---" line. A fence may carry trailing spaces, tabs and
// carriage returns. Split copies nothing and never fails; see Block for what it reports.
func Split(data []byte) Block {
	data = bytes.TrimPrefix(data, utf8BOM)
	none := Block{Body: data, BodyLine: 1}
	nl := bytes.IndexByte(data, '\n')
	first := data
	if nl >= 0 {
		first = data[:nl]
	}
	if !isFence(first) {
		return none
	}
	none.Opened = true
	if nl < 0 {
		return none
	}
	start := nl + 1
	line := 2
	for pos := start; pos < len(data); line++ {
		end := bytes.IndexByte(data[pos:], '\n')
		var cur []byte
		next := len(data)
		if end >= 0 {
			cur = data[pos : pos+end]
			next = pos + end + 1
		} else {
			cur = data[pos:]
		}
		if isFence(cur) {
			return Block{YAML: data[start:pos], Body: data[next:], BodyLine: line + 1, Opened: true, Closed: true}
		}
		pos = next
	}
	return none
}

// isFence reports whether line (without its "\n") is a "---" delimiter line.
func isFence(line []byte) bool {
	line = bytes.TrimRight(line, " \t\r")
	return len(line) == 3 && line[0] == '-' && line[1] == '-' && line[2] == '-'
}

// NormalizeNewlines returns b with CRLF and lone CR line ends turned into LF. It returns b itself
// when b holds no CR.
func NormalizeNewlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}
