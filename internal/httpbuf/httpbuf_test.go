package httpbuf

import (
	"net/http"
	"testing"
)

// The zero Response serves a handler: the first status written is kept, a first Write is 200,
// and header and body are what the handler wrote.
func TestResponseKeepsWhatIsWritten(t *testing.T) {
	var w Response
	http.Error(&w, "nope", http.StatusTeapot)
	w.WriteHeader(http.StatusOK)
	if w.Status != http.StatusTeapot || w.Body.String() != "nope\n" || w.Header().Get("Content-Type") == "" {
		t.Errorf("status %d, body %q, header %v", w.Status, w.Body.String(), w.Header())
	}
	var ok Response
	_, _ = ok.Write([]byte("hi"))
	ok.Flush()
	if ok.Status != http.StatusOK || ok.Body.String() != "hi" {
		t.Errorf("after Write: status %d, body %q", ok.Status, ok.Body.String())
	}
}

// An informational status (1xx, as 103 Early Hints) is not the response's: the status written
// after it is, as a server sends it.
func TestResponseSkipsInformationalStatus(t *testing.T) {
	var w Response
	w.WriteHeader(http.StatusEarlyHints)
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte("ok"))
	if w.Status != http.StatusAccepted {
		t.Errorf("status %d, want %d", w.Status, http.StatusAccepted)
	}
}
