package connpool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/connpool/internal/httpcall"
	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawHTTP passes calls through to a streamable HTTP server (Conn.CallRaw): the request is
// POSTed in the go-sdk session's own MCP session (its Mcp-Session-Id and protocol version), on
// the client's own http.Client (its headers, its redirect rules, its notification tap), and
// the response — a JSON body, or an event stream ending with it — is read without the go-sdk.
//
// On an event stream, what comes before the response is handled as the go-sdk session would:
// progress and log messages by the tap (in order), list_changed and resources/updated fanned
// out to the observers. A request from the server on that stream (the server asking for roots,
// sampling or elicitation during the call) cannot reach the session's handlers from here, so it
// is answered with a JSON-RPC error saying so (a ping with an empty result): a caller whose
// client may be asked such things makes its calls through the session instead (the gateway
// passes a call through only for a client that declared neither sampling nor elicitation).
//
// Errors are those of the go-sdk's own calls, marked as CallError marks them: no HTTP response
// at all wraps the go-sdk's "rejected" JSON-RPC error (-32005) and the *url.Error, and is
// ErrNotSent when the connection could not be dialled, else ErrLost (headerTransport marks
// it); an error status wraps the rejected error alone (the server answered); 404 (the server
// forgot the session) wraps mcp.ErrSessionMissing, is ErrLost and ends the client; a stream
// that ends or breaks before the response is ErrLost.
type rawHTTP struct {
	hc       *http.Client
	lean     *httpcall.Transport // hc's, unless a proxy or TLS is in the way; closed with the client
	endpoint string
	session  string
	version  string
	c        *client
	life     context.Context // the client's: ends when it is torn down
	next     atomic.Uint64
	drains   atomic.Int32 // drains running

	prepared sync.Once   // url and header, made at the first post
	url      *url.URL    // endpoint parsed; nil: posts go through hc.Do
	header   http.Header // the header of every post: RoundTrippers do not modify a request's
}

func (h *rawHTTP) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	id := rawIDPrefix + strconv.FormatUint(h.next.Add(1), 10)
	body := wire.AppendRequest(make([]byte, 0, len(params)+96), id, method, params)
	// The request ends with ctx while the call waits for its answer, not after: the end of
	// an event stream, read after the answer (drain), keeps the connection for the next call.
	rctx, rcancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, rcancel)
	resp, err := h.post(rctx, body)
	if err != nil {
		stop()
		rcancel()
		if ctx.Err() != nil {
			h.cancelled(id, ctx)
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("calling %q: %w: %w", method, errRejected, err)
	}
	rb := resp.Body
	defer func() {
		if rb != nil {
			stop()
			rb.Close()
			rcancel()
		}
	}()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		// The server forgot the session; the transport (headerTransport) has ended the client
		// already, as for the go-sdk's own requests, so that the next Get starts a new one.
		return nil, lost(fmt.Errorf("calling %q: %w (HTTP 404)", method, mcp.ErrSessionMissing))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("calling %q: %w: HTTP %d: %s", method, errRejected, resp.StatusCode, bytes.TrimSpace(b))
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	var res json.RawMessage
	switch ct {
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxFrame+1))
		if err != nil {
			// The body broke off: the request was delivered, its answer lost with the
			// connection.
			err = lost(err)
		} else if len(data) > maxFrame {
			err = fmt.Errorf("response exceeds %d bytes", maxFrame)
		}
		if err == nil {
			res, err = h.answer(id, data)
		}
		if err == nil && res == nil {
			err = fmt.Errorf("the JSON response does not answer request %s", id)
		}
		if err != nil {
			return nil, h.fail(ctx, id, method, err)
		}
		return res, nil
	case "text/event-stream":
		end := &endReader{r: resp.Body}
		res, err := h.stream(id, end)
		// A stream whose end came with its answer is done, its connection kept: only one
		// still open is drained.
		if err == nil && !end.ended && stop() && h.startDrain(rb, rcancel) {
			rb = nil
		}
		if err != nil {
			if !errors.Is(err, errBadAnswer) {
				// The stream ended or broke before the answer: the request was delivered,
				// its answer lost with the connection.
				err = lost(err)
			}
			return nil, h.fail(ctx, id, method, err)
		}
		return res, nil
	}
	return nil, fmt.Errorf("calling %q: %w: unexpected content type %q", method, errRejected, ct)
}

// fail returns the error of a call whose response could not be read.
func (h *rawHTTP) fail(ctx context.Context, id, method string, err error) error {
	if ctx.Err() != nil {
		h.cancelled(id, ctx)
		return ctx.Err()
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return err
	}
	return fmt.Errorf("calling %q: %w", method, err)
}

// cancelled tells the server a passed-through call was given up, without waiting for it. It
// ends with the client: a request after the client closed its idle connections would have its
// connection kept idle for good.
func (h *rawHTTP) cancelled(id string, ctx context.Context) {
	msg := wire.AppendCancelled(nil, id, context.Cause(ctx).Error())
	go func() {
		ctx, cancel := context.WithTimeout(h.life, 10*time.Second)
		defer cancel()
		if resp, err := h.post(ctx, msg); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
		}
	}()
}

// endReader reads r and records that r returned io.EOF.
type endReader struct {
	r     io.Reader
	ended bool
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.ended = true
	}
	return n, err
}

// startDrain reads the end of an event stream after its answer in the background (drain),
// as closing the body before its end closes the connection instead of keeping it alive for
// the next call. It does not when maxDrains are running already (a server keeping its
// streams open): it returns false, and the caller closes the body and its connection.
func (h *rawHTTP) startDrain(body io.ReadCloser, cancel context.CancelFunc) bool {
	if h.drains.Add(1) > maxDrains {
		h.drains.Add(-1)
		return false
	}
	go func() {
		defer h.drains.Add(-1)
		h.drain(body, cancel)
	}()
	return true
}

// maxDrains bounds the drains of one client running at once, and so the connections they
// hold: as many as the idle connections a client keeps.
const maxDrains = maxIdleConnsPerHost

// drain reads what is left of an event stream after its answer, closes it and ends its
// request (cancel), so that its connection goes back to the client's idle ones. It stops at
// the end of the client or after drainWait (a server keeping the stream open: its
// connection is closed), and reads at most maxFrame bytes.
func (h *rawHTTP) drain(body io.ReadCloser, cancel context.CancelFunc) {
	stop := context.AfterFunc(h.life, cancel)
	t := time.AfterFunc(drainWait, cancel)
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxFrame))
	t.Stop()
	stop()
	body.Close()
	cancel()
}

// drainWait bounds how long drain waits for the end of an event stream after its answer:
// a server ends it at once (the MCP specification asks it to), one that does not is not
// waited for.
const drainWait = 2 * time.Second

// errBadAnswer marks an answer that could not be read as JSON-RPC: the server sent it, so
// the connection is not lost.
var errBadAnswer = errors.New("invalid JSON-RPC message")

// answer reads one JSON-RPC message (or batch) of a response: the result of request id (nil
// if it is not the answer), or the error the server answered it with.
func (h *rawHTTP) answer(id string, data []byte) (json.RawMessage, error) {
	msgs, _, err := wire.DecodeBatch(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadAnswer, err)
	}
	for i := range msgs {
		m := &msgs[i]
		if m.HasMethod {
			h.other(m)
			continue
		}
		if got, ok := m.SDKID().Raw().(string); !ok || got != id {
			continue
		}
		if m.Error != nil {
			return nil, m.Error
		}
		if m.Result == nil {
			return nil, fmt.Errorf("%w: neither result nor error", errBadAnswer)
		}
		return m.Result, nil
	}
	return nil, nil
}

// other handles a message of the server that is not the answer: a notification the go-sdk
// session would have handled, or a request that can only be refused here.
func (h *rawHTTP) other(m *wire.Message) {
	method, id := m.Method, m.SDKID()
	if !id.IsValid() {
		switch NotificationKind(method) {
		case ToolsListChanged:
			h.c.fanout(Notification{Kind: ToolsListChanged, Params: &mcp.ToolListChangedParams{}})
		case PromptsListChanged:
			h.c.fanout(Notification{Kind: PromptsListChanged, Params: &mcp.PromptListChangedParams{}})
		case ResourcesListChanged:
			h.c.fanout(Notification{Kind: ResourcesListChanged, Params: &mcp.ResourceListChangedParams{}})
		case ResourceUpdated:
			var p mcp.ResourceUpdatedNotificationParams
			if json.Unmarshal(m.Params, &p) == nil {
				h.c.fanout(Notification{Kind: ResourceUpdated, URI: p.URI, Params: &p})
			}
		}
		return // progress and log messages: the tap delivered them as they were read
	}
	resp := &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}
	if method != "ping" {
		resp = &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: method + ": not available during a call agentpool passes through"}}
	}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(h.life, 10*time.Second)
		defer cancel()
		if r, err := h.post(ctx, data); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 4096))
			r.Body.Close()
		}
	}()
}

// eventReaders keeps the event readers of finished calls, whose buffers the next calls'
// streams use.
var eventReaders = sync.Pool{New: func() any { return wire.NewEventReader(nil, maxFrame) }}

// stream reads an event stream until the answer to id.
func (h *rawHTTP) stream(id string, body io.Reader) (json.RawMessage, error) {
	er := eventReaders.Get().(*wire.EventReader)
	er.Reset(body)
	defer func() {
		er.Reset(nil) // the answer's Data stays the caller's
		eventReaders.Put(er)
	}()
	for {
		ev, err := er.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("the server's event stream ended before the answer: %w", io.ErrUnexpectedEOF)
			}
			if errors.Is(err, wire.ErrMalformedEvent) {
				return nil, fmt.Errorf("%w: %w", errBadAnswer, err)
			}
			return nil, err
		}
		if !ev.Message() || len(ev.Data) == 0 {
			continue
		}
		res, err := h.answer(id, ev.Data)
		if res != nil || err != nil {
			return res, err
		}
	}
}
