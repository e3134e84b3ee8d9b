package httpcall

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"unsafe"
)

// A connection keeps at most maxKeptHead bytes for reading heads after an exceptionally large
// one, whether it was large by its lines (bytes) or by its number of fields (offsets).
func TestKeptHeadMemory(t *testing.T) {
	for name, line := range map[string]string{
		"long lines":  "X-A: " + strings.Repeat("a", 1000) + "\r\n",
		"many fields": "a:\r\n",
	} {
		in := "HTTP/1.1 200 OK\r\n" + strings.Repeat(line, (256<<10)/len(line)) + "Content-Length: 0\r\n\r\n"
		var h head
		var resp http.Response
		var f frame
		if err := readResponse(bufio.NewReader(strings.NewReader(in)), http.MethodPost, &h, &resp, &f); err != nil {
			t.Fatal(err)
		}
		kept := cap(h.buf) + cap(h.fields)*int(unsafe.Sizeof(field{}))
		if kept > maxKeptHead {
			t.Errorf("%s: %d bytes kept after a head of %d bytes, want at most %d", name, kept, len(in), maxKeptHead)
		}
	}
}
