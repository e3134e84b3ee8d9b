// Package heldbody reads an HTTP request's body whole before its handler runs, and keeps the
// bytes for whoever reads the body again or asks for them.
package heldbody

import (
	"bytes"
	"io"
	"net/http"
)

// UpFront is the largest declared length Read allocates before the body arrives: a larger
// body is read as it comes, so that a header claiming the cap costs only what was sent.
const UpFront = 64 << 10

// Read reads r's body whole, at most limit bytes: past that the error is an
// *http.MaxBytesError; a body shorter than its Content-Length is an error too. A declared
// length up to UpFront is read into one buffer of that size.
func Read(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n <= min(limit, UpFront) {
		body := make([]byte, n)
		_, err := io.ReadFull(r.Body, body) // net/http holds the body to its declared length
		return body, err
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// Hold makes r.Body a reader of data, which Of(r) returns.
func Hold(r *http.Request, data []byte) {
	b := &body{data: data}
	b.Reset(data)
	r.Body = b
}

// Of returns the bytes Hold gave r (nil when it gave none).
func Of(r *http.Request) []byte {
	if b, ok := r.Body.(*body); ok {
		return b.data
	}
	return nil
}

type body struct {
	bytes.Reader
	data []byte
}

func (*body) Close() error { return nil }
