package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
)

// An error status is one line: the model and endpoint, the status, the error's type and the
// endpoint's message; the SDK's error is still there for errors.As. A 400 is not retried.
func TestErrorStatus(t *testing.T) {
	s := newMessageServer(t, status(http.StatusBadRequest, "invalid_request_error", "max_tokens: too large"), reply("end_turn", textBlock(0, "no")))
	_, err := s.model(t, anthropic.Options{}).Stream(context.Background(), req("hi"), nil)
	want := `anthropic: model "claude-test" at ` + s.srv.URL + `: status 400 (invalid_request_error): max_tokens: too large`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Errorf("errors.As *sdk.Error: %v", apiErr)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a 400 is not retried", n)
	}
}

// A 401 says what to check.
func TestUnauthorized(t *testing.T) {
	s := newMessageServer(t, status(http.StatusUnauthorized, "authentication_error", "invalid x-api-key"))
	_, err := s.model(t, anthropic.Options{}).Generate(context.Background(), req("hi"))
	if err == nil || !strings.HasSuffix(err.Error(), "status 401 (authentication_error): invalid x-api-key; check the API key ($ANTHROPIC_API_KEY)") {
		t.Fatalf("err = %v, want the status, the message and what to check", err)
	}
}

// A 429 waits as long as Retry-After says, then the request is made again.
func TestRetryAfter429(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newInMemoryServer(status(http.StatusTooManyRequests, "rate_limit_error", "slow down", "Retry-After", "7"), reply("end_turn", textBlock(0, "finally")))
		resp, err := s.model(t, anthropic.Options{}).Stream(context.Background(), req("hi"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "finally" {
			t.Errorf("response %+v, want the second answer", resp)
		}
		if d := cmp.Diff([]time.Duration{7 * time.Second}, s.gaps()); d != "" {
			t.Errorf("waits between requests (-want +got):\n%s", d)
		}
	})
}

// Without Retry-After, the waits are 0.5 s, then doubled; retry-after-ms is read first.
func TestRetryBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newInMemoryServer(
			status(529, "overloaded_error", "Overloaded"),
			status(http.StatusInternalServerError, "api_error", "oops"),
			status(http.StatusServiceUnavailable, "api_error", "later", "Retry-After-Ms", "250", "Retry-After", "9"),
			reply("end_turn", textBlock(0, "ok")))
		if _, err := s.model(t, anthropic.Options{MaxRetries: 3}).Stream(context.Background(), req("hi"), nil); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]time.Duration{500 * time.Millisecond, time.Second, 250 * time.Millisecond}, s.gaps()); d != "" {
			t.Errorf("waits between requests (-want +got):\n%s", d)
		}
	})
}

// Once the retries are spent, the error is the last one's, and says how often it was retried.
func TestRetriesSpent(t *testing.T) {
	fail := status(529, "overloaded_error", "Overloaded", "Retry-After", "0")
	s := newMessageServer(t, fail, fail, fail, reply("end_turn", textBlock(0, "never")))
	_, err := s.model(t, anthropic.Options{}).Stream(context.Background(), req("hi"), nil)
	if err == nil || !strings.HasSuffix(err.Error(), "status 529 (overloaded_error): Overloaded (after 3 attempts)") {
		t.Fatalf("err = %v, want the 529 and the retries", err)
	}
	if n := len(s.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestRetryAfterBeyondBoundIsReturned(t *testing.T) {
	s := newMessageServer(t, status(http.StatusTooManyRequests, "rate_limit_error", "come back in an hour", "Retry-After", "3600"), reply("end_turn", textBlock(0, "never")))
	_, err := s.model(t, anthropic.Options{MaxRetryWait: time.Second}).Stream(context.Background(), req("hi"), nil)
	if err == nil || !strings.HasSuffix(err.Error(), "status 429 (rate_limit_error): come back in an hour") {
		t.Fatalf("err = %v, want the 429 and its message", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a Retry-After beyond MaxRetryWait is not waited for", n)
	}
}

const streamStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`

// An overloaded error in the stream before any text is retried; after text reached the
// caller it is not (the text would come twice), and the error says what happened.
func TestErrorEventInTheStream(t *testing.T) {
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	t.Run("before any text", func(t *testing.T) {
		s := newMessageServer(t, stream(streamStart, overloaded), reply("end_turn", textBlock(0, "ok")))
		resp, err := s.model(t, anthropic.Options{MaxRetryWait: time.Millisecond}).Stream(context.Background(), req("hi"), func(string) {})
		if err != nil || resp.Text != "ok" || len(s.requests()) != 2 {
			t.Errorf("%+v, %v after %d requests; want the second answer", resp, err, len(s.requests()))
		}
	})
	t.Run("after text", func(t *testing.T) {
		s := newMessageServer(t, stream(append(append([]string{streamStart}, textBlock(0, "Hal")...), overloaded)...), reply("end_turn", textBlock(0, "ok")))
		var got string
		_, err := s.model(t, anthropic.Options{MaxRetryWait: time.Millisecond}).Stream(context.Background(), req("hi"), func(d string) { got += d })
		if err == nil || !strings.HasSuffix(err.Error(), "error in the stream (overloaded_error): Overloaded") {
			t.Errorf("err = %v, want the error event", err)
		}
		if got != "Hal" || len(s.requests()) != 1 {
			t.Errorf("text %q after %d requests, want Hal after 1", got, len(s.requests()))
		}
	})
}

// Cancelling the context ends the request, mid-stream or while waiting to retry, with the
// context's error.
func TestCancel(t *testing.T) {
	t.Run("mid-stream", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		s := newMessageServer(t, func(w http.ResponseWriter) {
			stream(streamStart)(w)
			w.(http.Flusher).Flush()
			close(started)
			<-release
		})
		t.Cleanup(func() { close(release) }) // before the server's Close, which waits for this handler
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		_, err := s.model(t, anthropic.Options{}).Stream(ctx, req("hi"), nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("waiting to retry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newInMemoryServer(status(http.StatusTooManyRequests, "rate_limit_error", "slow down", "Retry-After", "20"), reply("end_turn", textBlock(0, "late")))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			_, err := s.model(t, anthropic.Options{}).Stream(ctx, req("hi"), nil)
			if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 5*time.Second {
				t.Errorf("err = %v after %v, want the deadline at 5s", err, time.Since(start))
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	})
}

// Each retry reaches the run's observer as an EventRetry saying what failed, the wait and the
// attempt to come.
func TestRetryReported(t *testing.T) {
	s := newMessageServer(t, status(http.StatusTooManyRequests, "rate_limit_error", "slow down", "Retry-After", "0"), reply("end_turn", textBlock(0, "ok")))
	var mu sync.Mutex
	var retries []string
	a, err := agent.New(agent.Options{Model: s.model(t, anthropic.Options{}), Registry: adaptertest.Registry(t),
		Scope: ext.Scope{SessionID: "s1", AgentName: "main"}, Observer: func(e agent.Event) {
			if e.Kind == agent.EventRetry {
				mu.Lock()
				retries = append(retries, e.Text)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), &agent.Input{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if d := cmp.Diff([]string{"status 429 (rate_limit_error): slow down; retrying in 0s (attempt 2 of 3)"}, retries); d != "" {
		t.Errorf("retry events (-want +got):\n%s", d)
	}
}

// A base URL may carry credentials (user info for a proxy, a key in the query); the errors
// name the endpoint without them, whether it answered with an error or could not be reached.
func TestEndpointCredentialsNotInErrors(t *testing.T) {
	s := newMessageServer(t, status(http.StatusBadRequest, "invalid_request_error", "bad"), status(http.StatusBadRequest, "invalid_request_error", "bad"))
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, base := range []string{s.srv.URL, down.URL} {
		host := strings.TrimPrefix(base, "http://")
		u := "http://user:sk-password@" + host + "/?key=sk-query-key"
		_, err := s.model(t, anthropic.Options{BaseURL: u, MaxRetries: -1}).Generate(context.Background(), req("hi"))
		if err == nil {
			t.Fatalf("%s: no error", u)
		}
		for _, secret := range []string{"sk-password", "sk-query-key"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error for %s shows %s: %v", u, secret, err)
			}
		}
		if !strings.Contains(err.Error(), host) {
			t.Errorf("the error for %s does not name the endpoint: %v", u, err)
		}
	}
}

// A Retry-After too long for a time.Duration is beyond any MaxRetryWait: the error is
// returned, the request is not made again at once.
func TestRetryAfterBeyondDurationIsReturned(t *testing.T) {
	for _, h := range [][]string{{"Retry-After", "99999999999"}, {"Retry-After", "+Inf"}, {"Retry-After-Ms", "1e300"}} {
		t.Run(h[0]+"="+h[1], func(t *testing.T) {
			s := newMessageServer(t, status(http.StatusTooManyRequests, "rate_limit_error", "come back much later", h...), reply("end_turn", textBlock(0, "never")))
			_, err := s.model(t, anthropic.Options{}).Stream(context.Background(), req("hi"), nil)
			if err == nil || !strings.HasSuffix(err.Error(), "status 429 (rate_limit_error): come back much later") {
				t.Fatalf("err = %v, want the 429 and its message", err)
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests, want 1: a Retry-After beyond MaxRetryWait is not waited for", n)
			}
		})
	}
}

// However many retries are allowed, the wait without Retry-After doubles up to its bound and
// stays there.
func TestRetryBackoffStaysBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const retries = 70
		var replies []func(w http.ResponseWriter)
		for range retries {
			replies = append(replies, status(529, "overloaded_error", "Overloaded"))
		}
		s := newInMemoryServer(append(replies, reply("end_turn", textBlock(0, "ok")))...)
		if _, err := s.model(t, anthropic.Options{MaxRetries: retries}).Stream(context.Background(), req("hi"), nil); err != nil {
			t.Fatal(err)
		}
		gaps := s.gaps()
		if len(gaps) != retries {
			t.Fatalf("%d retries, want %d", len(gaps), retries)
		}
		for i, g := range gaps[4:] {
			if g != 8*time.Second {
				t.Fatalf("wait before attempt %d: %v, want the bound 8s", i+6, g)
			}
		}
	})
}

// A base URL that does not parse is refused or failed on without showing what it holds: a
// user name and password, a key in the query.
func TestUnparsableEndpointCredentialsNotInErrors(t *testing.T) {
	for _, u := range []string{"http://user:sk-password@host:notaport/", "http://host/?key=sk-query-key\x7f"} {
		m, err := anthropic.New(anthropic.Options{BaseURL: u, Model: "claude-test", APIKey: "test-key", MaxRetries: -1})
		if err == nil {
			_, err = m.Generate(context.Background(), req("hi"))
		}
		if err == nil {
			t.Fatalf("%q: no error", u)
		}
		for _, secret := range []string{"sk-password", "sk-query-key"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error for %q shows %s: %v", u, secret, err)
			}
		}
		if !strings.Contains(err.Error(), "base URL") {
			t.Errorf("the error for %q does not say the base URL is wrong: %v", u, err)
		}
	}
}
