package connpool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

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
// Errors have the shapes the go-sdk's own calls give (mcpcap.connectionLost reads them): no
// HTTP response at all wraps the go-sdk's "rejected" JSON-RPC error (-32005) and the
// *url.Error; an error status wraps the rejected error alone; 404 (the server forgot the
// session) wraps mcp.ErrSessionMissing and ends the client; a stream that ends before the response io.EOF.
type rawHTTP struct {
	hc       *http.Client
	endpoint string
	session  string
	version  string
	c        *client
	life     context.Context // the client's: ends when it is torn down
	next     atomic.Uint64
}

// errRejected is the go-sdk's jsonrpc2.ErrRejected (internal to it), by code.
var errRejected = &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}

func (h *rawHTTP) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	id := rawIDPrefix + strconv.FormatUint(h.next.Add(1), 10)
	body := make([]byte, 0, len(params)+96)
	body = append(body, `{"jsonrpc":"2.0","id":"`...)
	body = append(body, id...)
	body = append(body, `","method":`...)
	body = strconv.AppendQuote(body, method)
	if len(params) > 0 {
		body = append(body, `,"params":`...)
		body = append(body, params...)
	}
	body = append(body, '}')
	resp, err := h.post(ctx, body)
	if err != nil {
		if ctx.Err() != nil {
			h.cancelled(id, ctx)
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("calling %q: %w: %w", method, errRejected, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		// The server forgot the session; the transport (headerTransport) has ended the client
		// already, as for the go-sdk's own requests, so that the next Get starts a new one.
		return nil, fmt.Errorf("calling %q: %w (HTTP 404)", method, mcp.ErrSessionMissing)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("calling %q: %w: HTTP %d: %s", method, errRejected, resp.StatusCode, bytes.TrimSpace(b))
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	var res json.RawMessage
	switch ct {
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxFrame+1))
		if err == nil && len(data) > maxFrame {
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
		res, err := h.stream(id, resp.Body)
		if err != nil {
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

// post sends one JSON-RPC message of the session.
func (h *rawHTTP) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
	}
	if h.version != "" {
		req.Header.Set("Mcp-Protocol-Version", h.version)
	}
	return h.hc.Do(req)
}

// cancelled tells the server a passed-through call was given up, without waiting for it. It
// ends with the client: a request after the client closed its idle connections would have its
// connection kept idle for good.
func (h *rawHTTP) cancelled(id string, ctx context.Context) {
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + id +
		`","reason":` + strconv.Quote(context.Cause(ctx).Error()) + `}}`)
	go func() {
		ctx, cancel := context.WithTimeout(h.life, 10*time.Second)
		defer cancel()
		if resp, err := h.post(ctx, msg); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
		}
	}()
}

// answer reads one JSON-RPC message (or batch) of a response: the result of request id (nil
// if it is not the answer), or the error the server answered it with.
func (h *rawHTTP) answer(id string, data []byte) (json.RawMessage, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(t, &batch); err != nil {
			return nil, fmt.Errorf("invalid JSON-RPC batch: %w", err)
		}
		for _, m := range batch {
			if res, err := h.answer(id, m); res != nil || err != nil {
				return res, err
			}
		}
		return nil, nil
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("invalid JSON-RPC message: %w", err)
	}
	if len(w.Method) > 0 {
		h.other(w)
		return nil, nil
	}
	var got string
	if json.Unmarshal(w.ID, &got) != nil || got != id {
		return nil, nil
	}
	if w.Error != nil {
		return nil, w.Error
	}
	if len(w.Result) == 0 {
		return nil, errors.New("invalid JSON-RPC response: neither result nor error")
	}
	return w.Result, nil
}

// other handles a message of the server that is not the answer: a notification the go-sdk
// session would have handled, or a request that can only be refused here.
func (h *rawHTTP) other(w wire) {
	var method string
	_ = json.Unmarshal(w.Method, &method)
	id, _ := parseID(w.ID)
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
			if json.Unmarshal(w.Params, &p) == nil {
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

// stream reads an event stream until the answer to id.
func (h *rawHTTP) stream(id string, body io.Reader) (json.RawMessage, error) {
	br := bufio.NewReaderSize(body, 16<<10)
	var data []byte
	for {
		line, err := readLine(br, maxFrame)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("the server's event stream ended before the answer: %w", io.ErrUnexpectedEOF)
			}
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if len(data) == 0 {
				continue
			}
			res, err := h.answer(id, data)
			if res != nil || err != nil {
				return res, err
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
			if len(data) > maxFrame {
				return nil, fmt.Errorf("an event exceeds %d bytes", maxFrame)
			}
		}
	}
}
