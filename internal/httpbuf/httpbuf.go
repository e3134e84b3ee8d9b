// Package httpbuf holds Response, an http.ResponseWriter that keeps a whole response in memory
// for its caller to send on in another form: an answer written by hand on a raw connection, or
// one message's answer gathered into a JSON-RPC batch.
package httpbuf

import (
	"bytes"
	"net/http"
)

// Response keeps what a handler writes. Status is the first status written (WriteHeader or a
// first Write, which writes 200), 0 while none was; later ones are ignored, as a server ignores
// them, and so is an informational one (1xx but 101), which a server sends ahead of the
// response. Body is every byte written. Flush does nothing: the body is read once whole. The zero
// value is ready to use.
type Response struct {
	Status int
	Body   bytes.Buffer
	header http.Header
}

// Header returns the response's header, made on first use.
func (w *Response) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}

func (w *Response) WriteHeader(code int) {
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		return
	}
	if w.Status == 0 {
		w.Status = code
	}
}

func (w *Response) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.Body.Write(p)
}

// Flush is http.Flusher's.
func (w *Response) Flush() {}
