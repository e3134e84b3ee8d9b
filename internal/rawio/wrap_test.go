package rawio

import (
	"net"
	"testing"
)

// counted is a connection of another package: it embeds a *net.TCPConn, so it is a
// syscall.Conn, and it does something on each Read.
type counted struct {
	*net.TCPConn
	reads int
}

func (c *counted) Read(p []byte) (int, error) {
	c.reads++
	return c.TCPConn.Read(p)
}

// A connection that is not the net package's own is handed back: its Read is not bypassed
// for the descriptor beneath it.
func TestConnKeepsAWrappersRead(t *testing.T) {
	plain, peer := tcpPairPlain(t)
	cc := &counted{TCPConn: plain.(*net.TCPConn)}
	c := Conn(cc)
	peer.Write([]byte("x"))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if cc.reads != 1 {
		t.Fatalf("Conn of a %T read its descriptor without the wrapper's Read", cc)
	}
}

// A datagram connection is handed back: an empty datagram reads as 0 bytes and no error,
// not as the end of a stream.
func TestConnLeavesDatagrams(t *testing.T) {
	a, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := net.DialUDP("udp", nil, a.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c := Conn(b)
	if _, err := a.WriteTo(nil, b.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 8)); n != 0 || err != nil {
		t.Fatalf("Read of an empty datagram: %d, %v; want 0, nil as the net package's", n, err)
	}
}

// A Unix stream connection is wrapped, accepted or dialled; a Unix datagram one is not.
func TestConnUnix(t *testing.T) {
	name := t.TempDir() + "/s"
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ch := make(chan net.Conn, 1)
	go func() {
		c, _ := Listen(ln).Accept()
		ch <- c
	}()
	d, err := net.Dial("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	accepted := <-ch
	if accepted == nil {
		t.Fatal("accept failed")
	}
	defer accepted.Close()
	wantRaw(t, accepted)
	dialled := Conn(d)
	wantRaw(t, dialled)
	dialled.Write([]byte("ping"))
	b := make([]byte, 8)
	if n, err := accepted.Read(b); err != nil || string(b[:n]) != "ping" {
		t.Fatalf("Read: %q, %v", b[:n], err)
	}

	g, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: t.TempDir() + "/g", Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, ok := Conn(g).(*conn); ok {
		t.Fatal("a unixgram connection was wrapped")
	}
}
