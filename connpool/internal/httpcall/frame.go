package httpcall

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
)

// frameBody applies net/http's rules of message framing (net/http/transfer.go) to resp's
// header and status: it sets resp's ContentLength, TransferEncoding, Close and Trailer, and
// f to read the body off br.
func frameBody(br *bufio.Reader, method string, resp *http.Response, f *frame, seen fieldSet) error {
	hdr := resp.Header
	*f = frame{br: br}
	resp.Close = shouldClose(resp.ProtoMajor, resp.ProtoMinor, hdr, seen&connection != 0)
	major, minor := resp.ProtoMajor, resp.ProtoMinor
	if major == 0 && minor == 0 {
		major, minor = 1, 1
	}
	chunked := false
	if raw, ok := hdr["Transfer-Encoding"]; ok && seen&transferEncoding != 0 {
		delete(hdr, "Transfer-Encoding")
		if major > 1 || major == 1 && minor >= 1 {
			if len(raw) != 1 {
				return fmt.Errorf("too many transfer encodings: %q", raw)
			}
			if !asciiEqualFold(raw[0], "chunked") {
				return fmt.Errorf("unsupported transfer encoding: %q", raw[0])
			}
			chunked = true
		}
	}
	length, err := bodyLength(resp.StatusCode, method, hdr, chunked, seen&contentLength != 0)
	if err != nil {
		return err
	}
	resp.ContentLength = length
	if method == http.MethodHead {
		if resp.ContentLength, err = parseContentLength(hdr["Content-Length"]); err != nil {
			return err
		}
	}
	if resp.Trailer, err = trailerKeys(hdr, chunked && seen&trailer != 0); err != nil {
		return err
	}
	allowed := bodyAllowed(resp.StatusCode)
	if length == -1 && !chunked && allowed {
		resp.Close = true // the body ends where the connection does
	}
	switch {
	case chunked:
		// RFC 9112 (6.3): a message framed both ways may be smuggling; it is read as
		// chunked, as net/http reads it, but its connection is not trusted again.
		f.mixed = seen&contentLength != 0
		f.te[0] = "chunked"
		resp.TransferEncoding = f.te[:]
		if method != http.MethodHead && allowed {
			f.kind, f.cr, f.resp = chunkedBody, httputil.NewChunkedReader(br), resp
		}
	case length > 0:
		f.kind, f.n = lengthBody, length
	case length < 0 && resp.Close:
		f.kind = eofBody
	}
	return nil
}

// bodyLength returns the length of the body: -1 when chunked or until the connection's end.
func bodyLength(status int, method string, hdr http.Header, chunked, hasCL bool) (int64, error) {
	var cls []string
	if hasCL {
		cls = hdr["Content-Length"]
	}
	if len(cls) > 1 {
		// Duplicates are dropped if they agree; otherwise the length is in doubt.
		first := textproto.TrimString(cls[0])
		for _, cl := range cls[1:] {
			if textproto.TrimString(cl) != first {
				return 0, fmt.Errorf("http: message cannot contain multiple Content-Length headers; got %q", cls)
			}
		}
		cls = []string{first}
		hdr["Content-Length"] = cls
	}
	n, err := parseContentLength(cls)
	if err != nil {
		return -1, err
	}
	if method == http.MethodHead || status/100 == 1 || status == 204 || status == 304 {
		return 0, nil
	}
	if chunked {
		if hasCL {
			delete(hdr, "Content-Length") // chunked overrides a length
		}
		return -1, nil
	}
	return n, nil
}

// parseContentLength returns the length that cls states, -1 if none.
func parseContentLength(cls []string) (int64, error) {
	if len(cls) == 0 {
		return -1, nil
	}
	cl := textproto.TrimString(cls[0])
	if cl == "" {
		return 0, badString("invalid empty Content-Length", nil)
	}
	n, err := strconv.ParseUint(cl, 10, 63)
	if err != nil {
		return 0, badString("bad Content-Length", []byte(cl))
	}
	return int64(n), nil
}

// trailerKeys returns the trailer a chunked body announces in hdr's Trailer, which it removes.
func trailerKeys(hdr http.Header, chunked bool) (http.Header, error) {
	vv, ok := hdr["Trailer"]
	if !ok || !chunked {
		return nil, nil
	}
	delete(hdr, "Trailer")
	var trailer http.Header
	for _, v := range vv {
		for _, k := range bytes.Split([]byte(v), []byte(",")) {
			k = bytes.Trim(k, " \t\r\n")
			if len(k) == 0 {
				continue
			}
			key := http.CanonicalHeaderKey(string(k))
			switch key {
			case "Transfer-Encoding", "Trailer", "Content-Length":
				return nil, badString("bad trailer key", []byte(key))
			}
			if trailer == nil {
				trailer = make(http.Header)
			}
			trailer[key] = nil
		}
	}
	return trailer, nil
}

// shouldClose reports whether the connection ends after the response: HTTP/1.0 without
// keep-alive, or "Connection: close", which is removed from an HTTP/1.1 header as net/http does.
func shouldClose(major, minor int, hdr http.Header, hasConnection bool) bool {
	if major < 1 {
		return true
	}
	var conv []string
	if hasConnection {
		conv = hdr["Connection"]
	}
	hasClose := containsToken(conv, "close")
	if major == 1 && minor == 0 {
		return hasClose || !containsToken(conv, "keep-alive")
	}
	if hasClose {
		delete(hdr, "Connection")
	}
	return hasClose
}

func bodyAllowed(status int) bool {
	return (status < 100 || status > 199) && status != 204 && status != 304
}

// containsToken reports whether one of the comma-separated values vv is token, in any case.
func containsToken(vv []string, token string) bool {
	for _, v := range vv {
		for {
			e, rest, more := cut(v, ',')
			if asciiEqualFold(trimOWS(e), token) {
				return true
			}
			if !more {
				break
			}
			v = rest
		}
	}
	return false
}

func cut(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// asciiEqualFold compares ASCII case-insensitively; other bytes must be equal.
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lower(s[i]) != lower(t[i]) {
			return false
		}
	}
	return true
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + ('a' - 'A')
	}
	return b
}

// frameKind is how a response's body is delimited.
type frameKind uint8

const (
	noBody      frameKind = iota
	lengthBody            // Content-Length bytes
	chunkedBody           // chunked transfer coding, then the trailer
	eofBody               // up to the connection's end
	netHTTPBody           // read by net/http (Transport.netHTTP)
)

// frame reads a response's body off br as its framing says, as net/http's body does: a body
// cut short by the connection's end is io.ErrUnexpectedEOF; the last bytes come with io.EOF
// where the length is known.
type frame struct {
	br   *bufio.Reader
	kind frameKind
	n    int64          // lengthBody: the bytes left
	cr   io.Reader      // chunkedBody: net/http's decoding of the chunks
	resp *http.Response // chunkedBody: its Trailer gets the trailer's fields
	te   [1]string      // resp.TransferEncoding
	rc   io.ReadCloser  // netHTTPBody: http.ReadResponse's body
	err  error          // the error every later Read returns

	mixed bool // the response had Content-Length as well as chunked: its connection is not kept
}

var errTrailerEOF = errors.New("http: unexpected EOF reading trailer")

func (f *frame) Read(p []byte) (n int, err error) {
	if f.err != nil {
		return 0, f.err
	}
	switch f.kind {
	case noBody:
		err = io.EOF
	case lengthBody:
		if f.n <= 0 {
			err = io.EOF
			break
		}
		if int64(len(p)) > f.n {
			p = p[:f.n]
		}
		n, err = f.br.Read(p)
		f.n -= int64(n)
		if err == io.EOF && f.n > 0 {
			err = io.ErrUnexpectedEOF
		} else if err == nil && n > 0 && f.n == 0 {
			err = io.EOF
		}
	case eofBody:
		n, err = f.br.Read(p)
	case netHTTPBody:
		n, err = f.rc.Read(p)
	case chunkedBody:
		n, err = f.cr.Read(p)
		if err == io.EOF {
			if terr := f.readTrailer(); terr != nil {
				err = terr
			}
		}
	}
	if err != nil {
		f.err = err
	}
	return n, err
}

// readTrailer reads the fields after the last chunk into the response's Trailer, as net/http
// does: at most what the reader's buffer holds.
func (f *frame) readTrailer() error {
	buf, err := f.br.Peek(2)
	if len(buf) == 2 && buf[0] == '\r' && buf[1] == '\n' {
		f.br.Discard(2)
		return nil
	}
	if len(buf) < 2 {
		return errTrailerEOF
	}
	if err != nil {
		return err
	}
	if !upcomingDoubleCRLF(f.br) {
		return errors.New("http: suspiciously long trailer after chunked body")
	}
	hdr, err := textproto.NewReader(f.br).ReadMIMEHeader()
	if err != nil {
		if err == io.EOF {
			return errTrailerEOF
		}
		return err
	}
	if f.resp.Trailer == nil {
		f.resp.Trailer = http.Header(hdr)
		return nil
	}
	for k, v := range hdr {
		f.resp.Trailer[k] = v
	}
	return nil
}

func upcomingDoubleCRLF(br *bufio.Reader) bool {
	for n := 4; ; n++ {
		buf, err := br.Peek(n)
		if bytes.HasSuffix(buf, []byte("\r\n\r\n")) {
			return true
		}
		if err != nil {
			return false
		}
	}
}
