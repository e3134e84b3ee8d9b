package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/openai/openai-go/v3"
)

// A retried request is reported to the run's observer, once per retry, with what failed, the
// wait and which attempt comes next; the final error of a request that never succeeded says
// how many times it was tried.
func TestRetryIsReported(t *testing.T) {
	s := newChatServer(t,
		raw(http.StatusTooManyRequests, `{"error":{"message":"slow down"}}`, "Retry-After", "0"),
		raw(http.StatusInternalServerError, `{"error":{"message":"upstream broke"}}`, "Retry-After", "0"),
		sse(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"finally"}}]}`))
	var mu sync.Mutex
	var retries []string
	a, err := agent.New(agent.Options{Model: s.model(t, openai.Options{}), Registry: adaptertest.Registry(t),
		Scope: ext.Scope{SessionID: "s1", AgentName: "main"},
		Observer: func(e agent.Event) {
			if e.Kind == agent.EventRetry {
				mu.Lock()
				retries = append(retries, e.Text)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "hi"})
	if err != nil || res.Text != "finally" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	want := []string{
		"429 Too Many Requests: slow down; retrying in 0s (attempt 2 of 3)",
		"500 Internal Server Error: upstream broke; retrying in 0s (attempt 3 of 3)",
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(retries, "\n") != strings.Join(want, "\n") {
		t.Errorf("retry events:\n%s\nwant:\n%s", strings.Join(retries, "\n"), strings.Join(want, "\n"))
	}
}

func TestRetriedErrorSaysSo(t *testing.T) {
	busy := raw(http.StatusTooManyRequests, `{"error":{"message":"slow down"}}`, "Retry-After", "0")
	s := newChatServer(t, busy, busy, busy)
	_, err := s.model(t, openai.Options{}).Generate(context.Background(), req("hi"))
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "slow down") || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("err = %v, want the 429 and the 3 attempts made", err)
	}
	if n := len(s.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// Outside a run, a model's retries report nothing and do not fail.
func TestRetryingOutsideARun(t *testing.T) {
	agent.Retrying(context.Background(), 1, 0, nil)
}

// A failure reads as one level: the model and its endpoint, what the endpoint said, how many
// attempts were made and what to do; the SDK's own wording is not repeated, and the SDK's
// error is still reachable with errors.As.
func TestErrorIsOneLevel(t *testing.T) {
	broke := raw(http.StatusInternalServerError, `{"error":{"message":"upstream broke"}}`, "Retry-After", "0")
	s := newChatServer(t, broke, broke, broke)
	_, err := s.model(t, openai.Options{}).Generate(context.Background(), req("hi"))
	want := `model "local-model" at ` + s.srv.URL + `/v1: 500 Internal Server Error: upstream broke (after 3 attempts); the endpoint failed: try again later`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Errorf("the SDK's error is not reachable in %v", err)
	}

	s = newChatServer(t, raw(http.StatusNotFound, `{"error":{"message":"model 'local-model' not found"}}`))
	_, err = s.model(t, openai.Options{}).Generate(context.Background(), req("hi"))
	want = `model "local-model" at ` + s.srv.URL + `/v1: 404 Not Found: model 'local-model' not found; check the model name and the base URL`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}

	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	m, err := openai.New(openai.Options{BaseURL: down.URL + "/v1", Model: "m", APIKey: "k", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), req("hi"))
	if err == nil || !strings.HasPrefix(err.Error(), `model "m" at `+down.URL+`/v1: `) || !strings.Contains(err.Error(), "connection refused") ||
		!strings.HasSuffix(err.Error(), "; is the endpoint running, and is the base URL right?") || strings.Contains(err.Error(), "Post ") {
		t.Errorf("err = %v, want the endpoint, the refusal and what to check", err)
	}
}

// capture is a Model that keeps the error its Model returned, which a Run replaces with ctx's
// when ctx ended.
type capture struct {
	m   *openai.Model
	err error
}

func (c *capture) Generate(ctx context.Context, r *agent.Request) (*agent.Response, error) {
	resp, err := c.m.Generate(ctx, r)
	c.err = err
	return resp, err
}

// A failed request's error wraps the SDK's error whatever ended it: a body that is not JSON
// (with ErrMalformedResponse), and a retry's wait ended by ctx (with ctx's error).
func TestFailureWrapsTheSDKError(t *testing.T) {
	s := newChatServer(t, raw(http.StatusOK, `<html>gateway says hi</html>`))
	_, err := s.model(t, openai.Options{}).Generate(context.Background(), req("hi"))
	var syn *json.SyntaxError
	if !errors.Is(err, openai.ErrMalformedResponse) || !errors.As(err, &syn) {
		t.Errorf("err = %v, want ErrMalformedResponse wrapping the JSON syntax error", err)
	}

	s = newChatServer(t, raw(http.StatusTooManyRequests, `{"error":{"message":"slow down"}}`, "Retry-After", "20"), completion("never"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &capture{m: s.model(t, openai.Options{})}
	a, err := agent.New(agent.Options{Model: m, Registry: adaptertest.Registry(t), Scope: ext.Scope{SessionID: "s1", AgentName: "main"},
		Observer: func(e agent.Event) {
			if e.Kind == agent.EventRetry {
				cancel() // during the wait
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := a.Run(ctx, &agent.Input{Prompt: "hi"}); res.Stop != agent.StopInterrupted || !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, %v; want interrupted", res.Stop, err)
	}
	var apiErr *sdk.Error
	if !errors.Is(m.err, context.Canceled) || !errors.As(m.err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests {
		t.Errorf("err = %v, want ctx's error wrapping the 429", m.err)
	}
	if want := `model "local-model" at ` + s.srv.URL + `/v1: context canceled`; m.err == nil || m.err.Error() != want {
		t.Errorf("err = %v, want %s", m.err, want)
	}
}
