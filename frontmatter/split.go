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
// UTF-8 byte order mark) and the next "---" line. Lines end with LF, CRLF or a lone CR, as Parse
// reads them, so a file with classic Mac line ends is split as its LF twin is. A fence may carry
// trailing spaces and tabs. Split copies nothing and never fails; see Block for what it reports.
func Split(data []byte) Block {
	data = bytes.TrimPrefix(data, utf8BOM)
	none := Block{Body: data, BodyLine: 1}
	end, next := lineEnd(data)
	if !isFence(data[:end]) {
		return none
	}
	none.Opened = true
	start := next
	line := 2
	for pos := start; pos < len(data); line++ {
		end, next := lineEnd(data[pos:])
		if isFence(data[pos : pos+end]) {
			return Block{YAML: data[start:pos], Body: data[pos+next:], BodyLine: line + 1, Opened: true, Closed: true}
		}
		pos += next
	}
	return none
}

// lineEnd returns the length of b's first line without its line end, and where the next line
// starts: after the first LF, CRLF or lone CR, or len(b) when b holds one line.
func lineEnd(b []byte) (end, next int) {
	nl := bytes.IndexByte(b, '\n')
	line := b
	if nl >= 0 {
		line = b[:nl]
	}
	// A CR before the LF ends the line there unless it is the CR of a CRLF.
	if cr := bytes.IndexByte(line, '\r'); cr >= 0 && (cr != len(line)-1 || nl < 0) {
		return cr, cr + 1
	}
	if nl < 0 {
		return len(b), len(b)
	}
	return nl, nl + 1
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
