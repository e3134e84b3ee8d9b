package openai

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
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// ErrMalformedResponse is what Generate and Stream wrap when the endpoint answered 2xx with
// something that is not a chat completion (not JSON, no choices, a tool call without a name).
var ErrMalformedResponse = errors.New("malformed chat-completions response")

// Defaults of Options.
const (
	DefaultMaxRetries   = 2
	DefaultMaxRetryWait = 30 * time.Second
)

// Options configures a Model.
type Options struct {
	// BaseURL is the endpoint's, up to and without /chat/completions: "http://127.0.0.1:8000/v1"
	// for vLLM, "http://127.0.0.1:8080/v1" for llama.cpp server, "http://127.0.0.1:11434/v1"
	// for Ollama. Empty means OpenAI's (or $OPENAI_BASE_URL).
	BaseURL string
	// Model is the model's name as the endpoint knows it. Required.
	Model string
	// APIKey is sent as a bearer token. Empty means $OPENAI_API_KEY if set, else none (local
	// servers need none).
	APIKey string
	// HTTPClient makes the requests; nil means the SDK's default.
	HTTPClient *http.Client
	// MaxRetries is how many times a request is retried after what the SDK retries (a 429, a
	// 5xx, a lost connection, …) (0: DefaultMaxRetries; negative: never).
	MaxRetries int
	// MaxRetryWait bounds the wait before a retry: a Retry-After (or Retry-After-Ms) longer
	// than it is not waited for, the error is returned instead (0: DefaultMaxRetryWait).
	MaxRetryWait time.Duration
}

// Model is an agent.Model (and agent.StreamingModel) for any OpenAI-compatible
// chat-completions endpoint. It is safe for concurrent use.
type Model struct {
	client  sdk.Client
	model   string
	where   string // for errors: the model and its endpoint
	retries int
	maxWait time.Duration
}

var (
	_ agent.Model             = (*Model)(nil)
	_ agent.StreamingModel    = (*Model)(nil)
	_ agent.ReasoningStreamer = (*Model)(nil)
)

// New returns a Model for opts.
func New(opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, errors.New("openai: no model name")
	}
	retries, wait := opts.MaxRetries, opts.MaxRetryWait
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	if wait <= 0 {
		wait = DefaultMaxRetryWait
	}
	ro := []option.RequestOption{option.WithMaxRetries(0)} // the Model retries, so a run can say so
	where := fmt.Sprintf("model %q", opts.Model)
	if opts.BaseURL != "" {
		ro = append(ro, option.WithBaseURL(opts.BaseURL))
		where += " at " + endpoint.Shown(opts.BaseURL)
	}
	if opts.APIKey != "" {
		ro = append(ro, option.WithAPIKey(opts.APIKey))
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	return &Model{client: sdk.NewClient(ro...), model: opts.Model, where: where, retries: retries, maxWait: wait}, nil
}

// Generate sends one chat-completions request (ChatParams) and returns the first choice's
// text and tool calls.
func (m *Model) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	params := ChatParams(m.model, req)
	return m.retrying(ctx, func() (*agent.Response, bool, error) {
		c, err := m.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return nil, true, err
		}
		resp, err := choice(c)
		return resp, false, err
	})
}

// choice returns a completion's first choice.
func choice(c *sdk.ChatCompletion) (*agent.Response, error) {
	if len(c.Choices) == 0 {
		return nil, fmt.Errorf("%w: no choices in %.200s", ErrMalformedResponse, c.RawJSON())
	}
	msg := c.Choices[0].Message
	resp := &agent.Response{Text: msg.Content}
	if resp.Text == "" {
		resp.Text = msg.Refusal // a refusal is the answer, in its own field
	}
	for _, tc := range msg.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: rawArgs(tc.Function.Arguments)})
	}
	return check(resp)
}

// Stream is Generate with the text streamed: it reads the server-sent chunks, passes each
// piece of text to delta, and assembles the tool calls from their deltas (by index: the id
// and name from the first, the arguments concatenated; a delta announcing another id at an
// index starts another call, as Ollama numbers every parallel call 0).
func (m *Model) Stream(ctx context.Context, req *agent.Request, delta func(text string)) (*agent.Response, error) {
	return m.StreamReasoning(ctx, req, delta, nil)
}

// StreamReasoning is Stream with the model's reasoning passed to thought (when not nil): the
// pieces a server streams in reasoning_content (vLLM, DeepSeek, llama.cpp) or reasoning
// (Ollama, OpenRouter) beside the content. The reasoning is not in the response.
func (m *Model) StreamReasoning(ctx context.Context, req *agent.Request, delta, thought func(text string)) (*agent.Response, error) {
	params := ChatParams(m.model, req)
	return m.retrying(ctx, func() (*agent.Response, bool, error) { return m.stream(ctx, params, delta, thought) })
}

// stream makes one streaming request; a failure before the first chunk may be retried.
func (m *Model) stream(ctx context.Context, params sdk.ChatCompletionNewParams, delta, thought func(text string)) (*agent.Response, bool, error) {
	s := m.client.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()
	var text strings.Builder
	var calls []*streamedCall         // in the order they began
	open := map[int64]*streamedCall{} // the call each index continues
	chunks := 0
	for s.Next() {
		chunks++
		chunk := s.Current()
		if len(chunk.Choices) == 0 {
			continue // a usage chunk, or a keep-alive
		}
		d := chunk.Choices[0].Delta
		// A refusal streams in its own field; it is the answer as content would be.
		for _, piece := range [...]string{d.Content, d.Refusal} {
			if piece != "" {
				text.WriteString(piece)
				if delta != nil {
					delta(piece)
				}
			}
		}
		if thought != nil {
			if piece := reasoning(d.JSON.ExtraFields); piece != "" {
				thought(piece)
			}
		}
		for _, tc := range d.ToolCalls {
			// A delta continues the call open at its index, unless it starts another call
			// there, with another id and a name: Ollama streams every call of a parallel
			// batch with index 0. (An id alone is not enough: some servers send a new one
			// with each piece of one call.)
			c := open[tc.Index]
			if c == nil || tc.ID != "" && c.id != "" && tc.ID != c.id && tc.Function.Name != "" {
				c = &streamedCall{index: tc.Index}
				calls = append(calls, c)
				open[tc.Index] = c
			}
			if tc.ID != "" {
				c.id = tc.ID
			}
			c.name.WriteString(tc.Function.Name)
			c.args.WriteString(tc.Function.Arguments)
		}
	}
	if err := s.Err(); err != nil {
		return nil, chunks == 0, err
	}
	if chunks == 0 {
		// A server that ignores "stream" answers one JSON completion, which the stream
		// reader passes over: without this, an empty answer.
		return nil, false, fmt.Errorf("%w: the streaming request was answered without server-sent events (does the endpoint stream?)", ErrMalformedResponse)
	}
	resp := &agent.Response{Text: text.String()}
	slices.SortStableFunc(calls, func(a, b *streamedCall) int { return cmp.Compare(a.index, b.index) })
	prev := int64(-1)
	for _, c := range calls {
		if c.index != prev && c.index != prev+1 {
			return nil, false, fmt.Errorf("%w: tool call index %d never given", ErrMalformedResponse, prev+1)
		}
		prev = c.index
		resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{ID: c.id, Name: c.name.String(), Arguments: rawArgs(c.args.String())})
	}
	resp, err := check(resp)
	return resp, false, err
}

// reasoning returns a delta's piece of reasoning: its reasoning_content, else its reasoning
// (a string; null or anything else is none).
func reasoning(extra map[string]respjson.Field) string {
	for _, k := range [...]string{"reasoning_content", "reasoning"} {
		f, ok := extra[k]
		if !ok || !strings.HasPrefix(f.Raw(), `"`) {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// streamedCall is a tool call being assembled from stream deltas.
type streamedCall struct {
	index      int64
	id         string
	name, args strings.Builder
}

// check rejects what no endpoint should answer: a tool call without a name.
func check(resp *agent.Response) (*agent.Response, error) {
	for i, c := range resp.ToolCalls {
		if c.Name == "" {
			return nil, fmt.Errorf("%w: tool call %d (id %q) has no function name", ErrMalformedResponse, i, c.ID)
		}
	}
	return resp, nil
}

// rawArgs returns a tool call's arguments as the model sent them, JSON or not: the agent
// answers the model what is wrong with text that is not JSON, and the history (sent back as
// it is) shows the model its own call.
func rawArgs(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return json.RawMessage(s)
}

// fail describes a failed request in one level, as a user reads it: the model and its
// endpoint, what the endpoint said (the status and its message) or why it could not be
// reached, how many attempts were made, and what to do. ErrMalformedResponse is wrapped for a
// body that is not what the API sends, ctx's error when it ended the request, and the SDK's
// error in every case.
func (m *Model) fail(ctx context.Context, err error, attempts int) error {
	if ctx.Err() != nil {
		return &failure{msg: m.where + ": " + ctx.Err().Error(), err: errors.Join(ctx.Err(), err)}
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return &failure{msg: m.where + ": " + brief(err) + tried(attempts) + advice(apiErr.StatusCode), err: err}
	}
	var ue *url.Error // net/http's names the request's URL, a user name as it is
	if errors.As(err, &ue) {
		ue.URL = endpoint.Shown(ue.URL)
		return &failure{msg: m.where + ": " + ue.Err.Error() + tried(attempts) + "; is the endpoint running, and is the base URL right?", err: err}
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return fmt.Errorf("%s: %w: %w", m.where, ErrMalformedResponse, err)
	}
	return fmt.Errorf("%s%s: %w", m.where, tried(attempts), err)
}

// failure is an error whose text is msg, wrapping err (whose own text msg says better).
type failure struct {
	msg string
	err error
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.err }

// advice says what to do about an answer of status, after "; " ("" when there is nothing to say).
func advice(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "; check the API key"
	case status == http.StatusNotFound:
		return "; check the model name and the base URL"
	case status == http.StatusTooManyRequests:
		return "; the endpoint is rate-limiting: wait, then try again"
	case status == http.StatusRequestTimeout || status >= http.StatusInternalServerError:
		return "; the endpoint failed: try again later"
	}
	return ""
}
