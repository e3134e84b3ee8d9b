//go:build !race

package rawio

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// A connection's descriptor made blocking after Conn (a dup's os.File.Fd shares its file
// status flags) still never blocks a raw read or write: the read waits on the poller and ends
// at its deadline, and a write to a peer not reading fails at its deadline. (Under the race
// detector the calls are the syscall package's, which enter the scheduler's system-call state
// as the net package's do: a blocking descriptor holds a thread there, not a processor.)
func TestConnMadeBlocking(t *testing.T) {
	c, peer := tcpPair(t)
	wantRaw(t, c)
	f, err := c.(*conn).Conn.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Fd() // makes the description that c shares blocking

	done := make(chan error, 1)
	go func() {
		c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := c.Read(make([]byte, 8))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read: %v, not its deadline", err)
		}
	case <-time.After(testwait.Timeout):
		peer.Write([]byte("x")) // ends the read blocked in the kernel
		<-done
		t.Fatal("a read of a descriptor made blocking held its thread past its deadline")
	}

	wrote := make(chan error, 1)
	go func() {
		c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := c.Write(make([]byte, 256<<20))
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("write: %v, not its deadline", err)
		}
	case <-time.After(testwait.Timeout):
		peer.Close() // ends the write blocked in the kernel
		<-wrote
		t.Fatal("a write to a descriptor made blocking held its thread past its deadline")
	}
}
