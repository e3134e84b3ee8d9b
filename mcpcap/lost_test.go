package mcpcap

import (
	"fmt"
	"io/fs"
	"net"
	"syscall"
	"testing"
)

// Errors that can only mean the connection is gone are classified as lost at once, without
// waiting for the connection's done channel: on a loaded machine the watcher may not have
// marked it within the grace period, and a read-only call would then not be retried.
func TestConnectionLostClosedPipes(t *testing.T) {
	never := make(chan struct{}) // a connection whose end has not been noticed yet
	for _, err := range []error{
		fmt.Errorf("calling \"tools/call\": read |0: %w", fs.ErrClosed),
		fmt.Errorf("calling %q: %w", "tools/call", &fs.PathError{Op: "read", Path: "|0", Err: fs.ErrClosed}), // as os.File reports it
		fmt.Errorf("write |1: %w", syscall.EPIPE),
		fmt.Errorf("read tcp: %w", net.ErrClosed),
	} {
		lost, sent := connectionLost(err, &conn{done: never})
		if !lost || !sent {
			t.Errorf("connectionLost(%v) = lost %v, sent %v; want lost and sent", err, lost, sent)
		}
	}
}
