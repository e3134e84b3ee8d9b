package lane

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
)

// pipeClient is the client end of a net.Pipe whose other end the lane serves; it reads
// answers on a goroutine of its own (a pipe's write waits for the read).
type pipeClient struct {
	t       *testing.T
	nc      net.Conn
	srv     *spyConn
	answers chan string // each answer's body, closed at EOF
}

// servePipe hands the server end of a new pipe to l. Call it inside a synctest bubble.
func servePipe(t *testing.T, l *Lane) *pipeClient {
	cli, srv := net.Pipe()
	c := &pipeClient{t: t, nc: cli, srv: &spyConn{Conn: srv}, answers: make(chan string, 16)}
	go func() {
		defer close(c.answers)
		br := bufio.NewReader(cli)
		for {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				return
			}
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				return
			}
			c.answers <- string(b)
		}
	}()
	t.Cleanup(func() { cli.Close() })
	t.Cleanup(l.workers.close) // its idle workers end with the bubble
	l.Serve(c.srv, nil)
	return c
}

// send writes s on a goroutine: a pipe's write returns once the lane has read it all.
func (c *pipeClient) send(s string) {
	go io.WriteString(c.nc, s)
}

// answer returns the next answer's body ("" and false at EOF). Call it after synctest.Wait
// only when an answer is due: it blocks otherwise.
func (c *pipeClient) answer() (string, bool) {
	s, ok := <-c.answers
	return s, ok
}

// pending reports whether an answer arrived and has not been read. Call after synctest.Wait.
func (c *pipeClient) pending() bool { return len(c.answers) > 0 }
