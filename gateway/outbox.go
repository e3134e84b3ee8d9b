package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// maxOutbox and maxOutboxBytes bound the notifications a session may have waiting to be
// sent, in number and in bytes (the size of what the upstream sent, the one being written
// included); beyond either, new ones are dropped (and counted), so a client that stops
// reading cannot make the gateway hold an upstream's whole output. One notification larger
// than maxOutboxBytes is still sent when nothing else waits.
const (
	maxOutbox      = 4096
	maxOutboxBytes = 8 << 20
)

// outbox sends a session's forwarded notifications (progress, log messages) in the order they
// arrived, on a goroutine of its own: they are produced on an upstream connection's reading
// goroutine, which must not wait for a client. The goroutine runs only while something is
// waiting, so an idle session costs none.
type outbox struct {
	wg sync.WaitGroup // a running sender
	// onDrop, if set, is told when notifications start being dropped (once until the queue
	// drains again), with the count dropped so far.
	onDrop func(dropped int)

	mu      sync.Mutex
	q       []queued
	bytes   int // the sizes of q and of the one being sent
	running bool
	closed  bool          // the session ended: nothing more is sent
	closedC chan struct{} // closed by close: a flush waiting returns (made on first need)
	dropped int
	behind  bool // dropping since the queue was last empty: reported already
}

// queued is a notification waiting: f sends it; size is what it holds, in bytes.
type queued struct {
	f    func()
	size int
}

// send queues f, which sends a notification of about size bytes; it never blocks.
func (o *outbox) send(size int, f func()) { o.enqueue(queued{f, size}, false) }

// push queues f, sized 0; always: even past the bounds (what must not be lost).
func (o *outbox) push(f func(), always bool) { o.enqueue(queued{f: f}, always) }

func (o *outbox) enqueue(e queued, always bool) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	full := len(o.q) >= maxOutbox || (o.bytes > 0 && o.bytes+e.size > maxOutboxBytes)
	if full && !always {
		o.dropped++
		report := !o.behind && o.onDrop != nil
		o.behind = true
		n := o.dropped
		o.mu.Unlock()
		if report {
			o.onDrop(n)
		}
		return
	}
	defer o.mu.Unlock()
	o.q = append(o.q, e)
	o.bytes += e.size
	if !o.running {
		o.running = true
		o.wg.Add(1)
		go o.run()
	}
}

func (o *outbox) run() {
	defer o.wg.Done()
	for {
		o.mu.Lock()
		if len(o.q) == 0 {
			o.running, o.behind = false, false
			o.mu.Unlock()
			return
		}
		e := o.q[0]
		o.q[0] = queued{}
		o.q = o.q[1:]
		o.mu.Unlock()
		e.f()
		o.mu.Lock()
		o.bytes -= e.size
		o.mu.Unlock()
	}
}

// close drops what is queued and anything sent later, waits for a running sender, and
// returns how many notifications were dropped for want of room.
func (o *outbox) close() (dropped int) {
	o.mu.Lock()
	if !o.closed {
		close(o.closedLocked())
	}
	o.closed = true
	for _, e := range o.q {
		o.bytes -= e.size
	}
	o.q = nil
	dropped = o.dropped
	o.mu.Unlock()
	o.wg.Wait()
	return dropped
}

// closedLocked returns the channel close closes; o.mu is held.
func (o *outbox) closedLocked() chan struct{} {
	if o.closedC == nil {
		o.closedC = make(chan struct{})
	}
	return o.closedC
}

// flush returns once everything queued before it has been sent, or ctx ended, or the outbox
// was closed (which drops what is queued, flush's own mark included): a call's result must not
// overtake the progress and log messages that preceded it.
func (o *outbox) flush(ctx context.Context) {
	done := make(chan struct{})
	o.push(func() { close(done) }, true)
	o.mu.Lock()
	closed := o.closedLocked()
	o.mu.Unlock()
	select {
	case <-done:
	case <-closed:
	case <-ctx.Done():
	}
}

// writeStall bounds one write to a client's HTTP stream. A client that stops reading (its
// socket buffers full) would otherwise block the write forever: its outbox's sender, and
// with it the go-sdk's closing of the session (DELETE, idle timeout, Close), which waits for
// the write. Past the bound the write fails, the stream breaks, and the session can end.
var writeStall = 30 * time.Second

// stallWriter sets a write deadline of writeStall around each write and flush, and clears it
// after, so a connection reused for the next request keeps no stale deadline.
type stallWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func guardWrites(w http.ResponseWriter) http.ResponseWriter {
	return stallWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
}

func (w stallWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(writeStall))
	defer w.rc.SetWriteDeadline(time.Time{})
	return w.ResponseWriter.Write(p)
}

func (w stallWriter) Flush() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(writeStall))
	defer w.rc.SetWriteDeadline(time.Time{})
	_ = w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
