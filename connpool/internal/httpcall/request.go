package httpcall

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// checkRequest refuses what net/http's Transport refuses before sending: a method that is not
// a token, a field name that is not one, a field value with a control character (CR, LF, NUL…).
func checkRequest(req *http.Request) error {
	if err := checkFields(req.Header); err != "" {
		return fmt.Errorf("net/http: invalid header %s", err)
	}
	if err := checkFields(req.Trailer); err != "" {
		return fmt.Errorf("net/http: invalid trailer %s", err)
	}
	if req.Method != "" && !isToken(req.Method) {
		return fmt.Errorf("net/http: invalid method %q", req.Method)
	}
	return nil
}

func checkFields(h http.Header) string {
	for k, vv := range h {
		if !isToken(k) {
			return fmt.Sprintf("field name %q", k)
		}
		for _, v := range vv {
			for i := 0; i < len(v); i++ {
				if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
					// Not the value: it may be a secret.
					return fmt.Sprintf("field value for %q", k)
				}
			}
		}
	}
	return ""
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// writable reports whether writeRequest writes req as req.Write would: a body of known
// length or none, no trailer, no Close, no transfer coding, a host that needs no cleaning,
// and a method other than CONNECT (whose request-URI may be the host).
func writable(req *http.Request) bool {
	if len(req.TransferEncoding) > 0 || req.Trailer != nil || req.Close || req.Method == http.MethodConnect {
		return false
	}
	if req.Body == nil || req.Body == http.NoBody {
		if req.ContentLength != 0 {
			return false
		}
	} else if req.ContentLength <= 0 {
		return false
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !isAlnum(c) && !strings.ContainsRune(".-_:[]", rune(c)) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// writeRequest writes a request that is writable to bw, as req.Write does, and closes its
// body. keys is scratch memory for the sorted field names.
func writeRequest(bw *bufio.Writer, req *http.Request, keys *[]string) (err error) {
	defer func() {
		if req.Body != nil {
			if cerr := req.Body.Close(); err == nil {
				err = cerr
			}
		}
	}()
	ruri := req.URL.RequestURI()
	for i := 0; i < len(ruri); i++ {
		if c := ruri[i]; c < ' ' || c == 0x7f {
			return errors.New("net/http: can't write control character in Request.URL")
		}
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	bw.WriteString(method)
	bw.WriteByte(' ')
	bw.WriteString(ruri)
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(host)
	bw.WriteString("\r\n")
	ua := "Go-http-client/1.1"
	if _, ok := req.Header["User-Agent"]; ok {
		ua = req.Header.Get("User-Agent")
	}
	if ua != "" {
		// One of white space only is sent empty, not left out.
		writeField(bw, "User-Agent", trimOWS(ua))
	}
	n := req.ContentLength
	if req.Body == nil || req.Body == http.NoBody {
		n = 0
	}
	if n > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		bw.WriteString("Content-Length: ")
		bw.Write(strconv.AppendInt(bw.AvailableBuffer(), n, 10))
		bw.WriteString("\r\n")
	}
	ks := (*keys)[:0]
	for k := range req.Header {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
		default:
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	for _, k := range ks {
		for _, v := range req.Header[k] {
			writeField(bw, k, trimOWS(v))
		}
	}
	clear(ks)
	*keys = ks[:0]
	if _, err := bw.WriteString("\r\n"); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if !inMemory(req.Body) {
		// The server may need the header before a body that is slow to come.
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return writeBody(bw, req.Body, n)
}

var nopCloserTypes = []reflect.Type{reflect.TypeOf(io.NopCloser(nil)),
	reflect.TypeOf(io.NopCloser(struct {
		io.Reader
		io.WriterTo
	}{}))}

// inMemory reports whether r is one of the readers net/http knows never to block, possibly
// behind io.NopCloser.
func inMemory(r io.Reader) bool {
	switch r.(type) {
	case *bytes.Reader, *bytes.Buffer, *strings.Reader:
		return true
	}
	if t := reflect.TypeOf(r); slices.Contains(nopCloserTypes, t) {
		return inMemory(reflect.ValueOf(r).Field(0).Interface().(io.Reader))
	}
	return false
}

func writeField(bw *bufio.Writer, k, v string) {
	bw.WriteString(k)
	bw.WriteString(": ")
	bw.WriteString(v)
	bw.WriteString("\r\n")
}

// writeBody copies n bytes of body to bw through bw's own buffer. A body of another length is
// an error naming both, as req.Write's.
func writeBody(bw *bufio.Writer, body io.Reader, n int64) error {
	var copied int64
	for copied < n {
		if bw.Available() == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		buf := bw.AvailableBuffer()
		buf = buf[:min(int64(cap(buf)), n-copied)]
		k, err := body.Read(buf)
		bw.Write(buf[:k])
		copied += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if copied == n {
		// Past the length: counted for the error, not sent. The buffer's free part is scratch.
		for {
			if bw.Available() == 0 {
				if err := bw.Flush(); err != nil {
					return err
				}
			}
			buf := bw.AvailableBuffer()
			k, err := body.Read(buf[:cap(buf)])
			copied += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
	}
	if copied != n {
		return fmt.Errorf("http: ContentLength=%d with Body length %d", n, copied)
	}
	return nil
}
