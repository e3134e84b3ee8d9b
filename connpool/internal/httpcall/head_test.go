package httpcall

import (
	"bufio"
	"net/http"
	"runtime"
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

// A head of many small fields (a server sending fields until the limit) costs about the
// memory http.ReadResponse takes for it, at most twice (under the race detector too): the
// bytes read bound what is allocated, not the number of fields times the room made for each.
func TestHeadOfManyFieldsMemory(t *testing.T) {
	for name, line := range map[string]string{"one key": "a:\n", "one key with a value": "a:b\r\n"} {
		in := "HTTP/1.1 200 OK\r\n" + strings.Repeat(line, (1<<20)/len(line)) + "Content-Length: 0\r\n\r\n"
		ours := allocated(func() {
			var h head
			var resp http.Response
			var f frame
			if err := readResponse(bufio.NewReaderSize(strings.NewReader(in), 4<<10), http.MethodPost, &h, &resp, &f); err != nil {
				t.Fatal(err)
			}
		})
		theirs := allocated(func() {
			br := bufio.NewReaderSize(strings.NewReader(in), 4<<10)
			if _, err := http.ReadResponse(br, &http.Request{Method: http.MethodPost}); err != nil {
				t.Fatal(err)
			}
		})
		if ours > 2*theirs {
			t.Errorf("%s: a head of %d bytes allocated %d bytes, http.ReadResponse %d", name, len(in), ours, theirs)
		}
	}
}

// allocated returns the bytes that f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
