package openai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/agentpool/agentpool/agent"
	sdk "github.com/openai/openai-go/v3"
)

// attempt is one request: its response, or its error and whether another attempt may be made
// (false once a streamed answer has begun).
type attempt func() (resp *agent.Response, again bool, err error)

// retrying makes try until it succeeds, fails in a way not worth retrying, or has been made
// MaxRetries+1 times, waiting between attempts (Retry-After, else a backoff) and reporting each
// retry to the run (agent.RetryingOf). The error says how many attempts were made.
func (m *Model) retrying(ctx context.Context, try attempt) (*agent.Response, error) {
	attempts := m.retries + 1
	for n := 1; ; n++ {
		resp, again, err := try()
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil || !again || n == attempts {
			return nil, m.fail(ctx, err, n)
		}
		wait, ok := m.retryWait(err, n)
		if !ok {
			return nil, m.fail(ctx, err, n)
		}
		agent.RetryingOf(ctx, n, attempts, wait, errors.New(brief(err)))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, m.fail(ctx, err, n)
		case <-t.C:
		}
	}
}

// retryWait returns how long to wait before the attempt after the n-th failed with err, and
// whether err is worth retrying at all: a lost connection, 408, 409, 429 or a 5xx (or what the
// server's x-should-retry says), and not a Retry-After beyond MaxRetryWait.
func (m *Model) retryWait(err error, n int) (time.Duration, bool) {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		var ue *url.Error
		return m.backoff(n), errors.As(err, &ue) // the request or its answer was lost on the way
	}
	var h http.Header
	if apiErr.Response != nil {
		h = apiErr.Response.Header
	}
	switch s := apiErr.StatusCode; {
	case h.Get("x-should-retry") == "false":
		return 0, false
	case h.Get("x-should-retry") == "true", s == http.StatusRequestTimeout, s == http.StatusConflict,
		s == http.StatusTooManyRequests, s >= http.StatusInternalServerError:
	default:
		return 0, false
	}
	if d, ok, within := retryAfter(h, m.maxWait); ok {
		return d, within
	}
	return m.backoff(n), true
}

// backoff is the wait after the n-th failed attempt when the server named none: half a second,
// doubled each time, bounded by MaxRetryWait, less up to a quarter of jitter.
func (m *Model) backoff(n int) time.Duration {
	d := m.maxWait
	if b := 0.5 * float64(time.Second) * math.Pow(2, float64(n-1)); b < float64(d) {
		d = time.Duration(b)
	}
	if j := int64(d / 4); j > 0 {
		d -= time.Duration(rand.Int64N(j))
	}
	return d
}

// retryAfter reads Retry-After-Ms, else Retry-After (seconds or an HTTP date): the wait, whether
// the server named one, and whether it is within limit.
func retryAfter(h http.Header, limit time.Duration) (wait time.Duration, named, within bool) {
	for _, hd := range [...]struct {
		name string
		unit time.Duration
	}{{"Retry-After-Ms", time.Millisecond}, {"Retry-After", time.Second}} {
		v := h.Get(hd.name)
		if v == "" {
			continue
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			if math.IsNaN(f) || f < 0 {
				continue
			}
			if f > float64(limit)/float64(hd.unit) {
				return 0, true, false
			}
			return time.Duration(f * float64(hd.unit)), true, true
		}
		if t, err := http.ParseTime(v); err == nil && hd.unit == time.Second {
			d := max(time.Until(t), 0)
			return d, true, d <= limit
		}
	}
	return 0, false, false
}

// brief says in one line what a failed attempt met: the status and the endpoint's message, or
// the transport's error.
func brief(err error) string {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		s := fmt.Sprintf("%d %s", apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
		if apiErr.Message != "" && apiErr.Message != http.StatusText(apiErr.StatusCode) {
			s += ": " + apiErr.Message
		}
		return s
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// tried says how many attempts a failure took, when more than one.
func tried(n int) string {
	if n < 2 {
		return ""
	}
	return " (after " + strconv.Itoa(n) + " attempts)"
}
