package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/internal/endpoint"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// ErrMalformedResponse is what Generate and Stream wrap when the endpoint answered 2xx with
// something that is not a Messages-API event stream (no events, an event not JSON, a delta
// for a block never started, a stream cut before message_stop, a tool_use without a name).
var ErrMalformedResponse = errors.New("malformed Messages-API response")

// Defaults of Options.
const (
	DefaultMaxTokens    = 8192
	DefaultMaxRetries   = 2
	DefaultMaxRetryWait = 30 * time.Second
)

// Options configures a Model.
type Options struct {
	// BaseURL is the endpoint's, up to and without /v1/messages. Empty means Anthropic's (or
	// $ANTHROPIC_BASE_URL).
	BaseURL string
	// Model is the model's name, "claude-sonnet-4-5" say. Required.
	Model string
	// APIKey is the API key, sent as the SDK sends it. Empty means the SDK's credentials: $ANTHROPIC_API_KEY, else
	// $ANTHROPIC_AUTH_TOKEN as a bearer token, else its profile files.
	APIKey string
	// MaxTokens is the API's required max_tokens, the bound of one answer (0:
	// DefaultMaxTokens).
	MaxTokens int64
	// HTTPClient makes the requests; nil means the SDK's default.
	HTTPClient *http.Client
	// MaxRetries is how many times a request is retried after a 408, 409, 429, 5xx or 529
	// status, an overloaded or api error event before any output, or a lost connection (0:
	// DefaultMaxRetries; negative: never).
	MaxRetries int
	// MaxRetryWait bounds the wait before a retry: a Retry-After (or retry-after-ms) longer
	// than it is not waited for, the error is returned instead (0: DefaultMaxRetryWait).
	MaxRetryWait time.Duration
}

// Model is an agent.Model (and agent.StreamingModel) for the Anthropic Messages API. It is
// safe for concurrent use.
type Model struct {
	client    sdk.Client
	model     string
	maxTokens int64
	retries   int
	maxWait   time.Duration
	where     string // for errors: the model and its endpoint
}

var (
	_ agent.Model             = (*Model)(nil)
	_ agent.StreamingModel    = (*Model)(nil)
	_ agent.ReasoningStreamer = (*Model)(nil)
)

// New returns a Model for opts, or an error when opts has no Model or a BaseURL that does not
// parse (which the error does not show: it may hold credentials). The SDK's own retries are
// off: the Model retries, so that each wait is reported to the run (agent.Retrying).
func New(opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, errors.New("anthropic: no model name")
	}
	if _, err := url.Parse(opts.BaseURL); err != nil {
		return nil, fmt.Errorf("anthropic: base URL %s: %v", endpoint.Shown(opts.BaseURL), err.(*url.Error).Err)
	}
	m := &Model{model: opts.Model, maxTokens: cmp.Or(opts.MaxTokens, DefaultMaxTokens),
		retries: opts.MaxRetries, maxWait: opts.MaxRetryWait, where: fmt.Sprintf("model %q", opts.Model)}
	switch {
	case m.retries == 0:
		m.retries = DefaultMaxRetries
	case m.retries < 0:
		m.retries = 0
	}
	if m.maxWait <= 0 {
		m.maxWait = DefaultMaxRetryWait
	}
	ro := []option.RequestOption{option.WithMaxRetries(0)}
	if opts.BaseURL != "" {
		ro = append(ro, option.WithBaseURL(opts.BaseURL))
		m.where += " at " + endpoint.Shown(opts.BaseURL)
	}
	if opts.APIKey != "" {
		ro = append(ro, option.WithAPIKey(opts.APIKey))
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	m.client = sdk.NewClient(ro...)
	return m, nil
}

// Generate is Stream without a delta func: the request streams either way, so a large
// MaxTokens meets no non-streaming time limit.
func (m *Model) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	return m.Stream(ctx, req, nil)
}

// Stream sends one streaming Messages request (Params) and passes each piece of text to
// delta; the Response is the text blocks joined and the tool_use blocks as tool calls, in
// the order of their blocks, each with its input_json_delta pieces concatenated. A request
// that failed before any text reached delta is retried as Options says.
func (m *Model) Stream(ctx context.Context, req *agent.Request, delta func(text string)) (*agent.Response, error) {
	return m.StreamReasoning(ctx, req, delta, nil)
}

// StreamReasoning is Stream with the pieces of thinking blocks (thinking_delta) passed to
// thought when it is not nil (agent.ReasoningStreamer). The thinking is not in the Response.
// A request that failed after text or thinking reached the caller is not retried.
func (m *Model) StreamReasoning(ctx context.Context, req *agent.Request, delta, thought func(text string)) (*agent.Response, error) {
	params := Params(m.model, m.maxTokens, req)
	for attempt := 1; ; attempt++ {
		resp, emitted, err := m.stream(ctx, params, delta, thought)
		if err == nil {
			return m.check(resp)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("anthropic: %s: %w", m.where, ctx.Err())
		}
		wait, retry := m.retryWait(err, attempt, emitted)
		if !retry {
			return nil, m.fail(err, attempt)
		}
		agent.RetryingOf(ctx, attempt, m.retries+1, wait, errors.New(brief(err)))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("anthropic: %s: %w", m.where, ctx.Err())
		case <-t.C:
		}
	}
}

// block is a content block being assembled from stream events.
type block struct {
	index      int64
	kind       string // "text", "tool_use", or another the Model does not use
	id, name   string
	args       strings.Builder
	startInput string // the input of content_block_start, for a server that sends it whole
}

// stream makes one streaming request. emitted reports whether text or thinking reached the
// caller, after which the request is not retried.
func (m *Model) stream(ctx context.Context, params sdk.MessageNewParams, delta, thought func(string)) (_ *agent.Response, emitted bool, _ error) {
	s := m.client.Messages.NewStreaming(ctx, params)
	defer s.Close()
	var text strings.Builder
	var blocks []*block
	open := map[int64]*block{}
	events, stopped := 0, false
	for s.Next() {
		events++
		ev := s.Current()
		switch ev.Type {
		case "content_block_start":
			cb := ev.ContentBlock
			b := &block{index: ev.Index, kind: cb.Type, id: cb.ID, name: cb.Name, startInput: cb.JSON.Input.Raw()}
			blocks = append(blocks, b)
			open[ev.Index] = b
			switch cb.Type {
			case "text":
				text.WriteString(cb.Text)
				emitted = emit(delta, cb.Text) || emitted
			case "thinking":
				emitted = emit(thought, cb.Thinking) || emitted
			}
		case "content_block_delta":
			b := open[ev.Index]
			if b == nil {
				return nil, emitted, fmt.Errorf("%w: a %s for block %d, which never started", ErrMalformedResponse, ev.Delta.Type, ev.Index)
			}
			switch ev.Delta.Type {
			case "text_delta":
				text.WriteString(ev.Delta.Text)
				emitted = emit(delta, ev.Delta.Text) || emitted
			case "input_json_delta":
				b.args.WriteString(ev.Delta.PartialJSON)
			case "thinking_delta":
				emitted = emit(thought, ev.Delta.Thinking) || emitted
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := s.Err(); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			return nil, emitted, fmt.Errorf("%w: %v", ErrMalformedResponse, err)
		}
		return nil, emitted, err
	}
	switch {
	case events == 0:
		// A server that ignores "stream" answers one JSON message, which the event reader
		// passes over: without this, an empty answer.
		return nil, emitted, fmt.Errorf("%w: the streaming request was answered without server-sent events (does the endpoint stream?)", ErrMalformedResponse)
	case !stopped:
		return nil, emitted, fmt.Errorf("%w: the stream ended before message_stop", ErrMalformedResponse)
	}
	resp := &agent.Response{Text: text.String()}
	slices.SortStableFunc(blocks, func(a, b *block) int { return cmp.Compare(a.index, b.index) })
	for _, b := range blocks {
		if b.kind != "tool_use" {
			continue
		}
		args := b.args.String()
		if strings.TrimSpace(args) == "" {
			args = b.startInput // whole in content_block_start, or {} before its deltas
		}
		resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{ID: b.id, Name: b.name, Arguments: rawArgs(args)})
	}
	return resp, emitted, nil
}

// emit passes a non-empty piece of text to delta and reports whether it did.
func emit(delta func(string), piece string) bool {
	if piece == "" || delta == nil {
		return false
	}
	delta(piece)
	return true
}

// check rejects what no endpoint should answer: a tool call without a name.
func (m *Model) check(resp *agent.Response) (*agent.Response, error) {
	for i, c := range resp.ToolCalls {
		if c.Name == "" {
			return nil, fmt.Errorf("anthropic: %s: %w: tool_use %d (id %q) has no name", m.where, ErrMalformedResponse, i, c.ID)
		}
	}
	return resp, nil
}

// rawArgs returns a tool call's input. Nothing is {}, as the API means; text that is not JSON
// (a stream cut at max_tokens) is kept as a JSON string, so the agent answers the model that
// its arguments are not an object instead of failing.
func rawArgs(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
