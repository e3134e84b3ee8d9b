package gateway_test

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"testing"
)

// maxLaneCallAllocs bounds the allocations of the serving process for one call on the lane to
// a pooled stdio upstream, from the request read to the answer written, the upstream
// connection's reader included.
const maxLaneCallAllocs = 11

// A call on the lane to a stdio upstream costs the gateway's process a bounded number of
// allocations, on every goroutine it crosses (the connection's, the call's worker, the
// upstream connection's reader).
func TestLaneCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ls := serveLane(t, nil)
	cs := connectPassing(t, ls.url)
	nc, err := net.Dial("tcp", ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	req := []byte(laneCall(cs.ID(), "ping"))
	buf := make([]byte, 4096)
	do := func() {
		if _, err := nc.Write(req); err != nil {
			t.Fatal(err)
		}
		if st := readLaneAnswer(t, nc, buf); st != 200 {
			t.Fatalf("status %d", st)
		}
	}
	do() // answered by net/http, which moves the connection to the lane
	do()
	if n := ls.taken(nc.LocalAddr().String()); n != 1 {
		t.Fatalf("net/http took the connection %d times, want once: the call was not the lane's", n)
	}
	if n := testing.AllocsPerRun(200, do); n > maxLaneCallAllocs {
		t.Errorf("%v allocations per call on the lane, want at most %d", n, maxLaneCallAllocs)
	}
}

// readLaneAnswer reads one answer of known framing (a Content-Length, no other body) from r
// into buf, allocating nothing, and returns its status.
func readLaneAnswer(t *testing.T, r io.Reader, buf []byte) int {
	t.Helper()
	n, end := 0, -1
	for end < 0 {
		m, err := r.Read(buf[n:])
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		n += m
		end = bytes.Index(buf[:n], []byte("\r\n\r\n"))
	}
	head := buf[:end]
	const cl = "\r\nContent-Length: "
	i := bytes.Index(head, []byte(cl))
	if i < 0 || len(head) < 12 {
		t.Fatalf("answer without a Content-Length: %q", head)
	}
	v := head[i+len(cl):]
	if j := bytes.IndexByte(v, '\r'); j >= 0 {
		v = v[:j]
	}
	size := 0
	for _, c := range v {
		size = size*10 + int(c-'0')
	}
	total := end + 4 + size
	for n < total {
		m, err := r.Read(buf[n:total])
		if err != nil {
			t.Fatalf("reading the answer's body: %v", err)
		}
		n += m
	}
	if n != total {
		t.Fatalf("%d bytes past the answer", n-total)
	}
	st, _ := strconv.Atoi(string(head[9:12]))
	return st
}
