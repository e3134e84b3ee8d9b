package lane

import (
	"net/http"
	"sync/atomic"
	"time"
)

// stamp is a Date header value of one second.
type stamp struct {
	sec int64
	b   []byte
}

var lastStamp atomic.Pointer[stamp]

// appendDate appends the current time as a Date header value, formatted once a second.
func appendDate(b []byte) []byte {
	now := time.Now()
	s := lastStamp.Load()
	if s == nil || s.sec != now.Unix() {
		s = &stamp{sec: now.Unix(), b: now.UTC().AppendFormat(nil, http.TimeFormat)}
		lastStamp.Store(s)
	}
	return append(b, s.b...)
}
