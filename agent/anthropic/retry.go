package anthropic

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// maxBackoff bounds the wait before a retry the endpoint gave no Retry-After for.
const maxBackoff = 8 * time.Second

// retryWait says whether a request that failed with err, on its attempt-th try, is retried,
// and after how long: a Retry-After (retry-after-ms first) as given, else 0.5 s doubled per
// attempt up to maxBackoff. Not retried: once text reached the caller, once the retries are
// spent, an x-should-retry: false, a status or error that another try would not change, a
// Retry-After beyond MaxRetryWait.
func (m *Model) retryWait(err error, attempt int, emitted bool) (time.Duration, bool) {
	if emitted || attempt > m.retries || !retryable(err) {
		return 0, false
	}
	wait := min(500*time.Millisecond<<min(attempt-1, 5), maxBackoff) // 0.5 s<<5 is past maxBackoff already
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		if d, ok := retryAfter(apiErr.Response.Header); ok {
			if d > m.maxWait {
				return 0, false
			}
			wait = d
		}
	}
	return min(wait, m.maxWait), true
}

// retryable reports whether another try may succeed where err failed: a status of a busy or
// failing endpoint (408, 409, 429, 5xx, 529), an overloaded or api error event in the stream,
// a request that never got an answer.
func retryable(err error) bool {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		if r := apiErr.Response; r != nil {
			switch r.Header.Get("x-should-retry") {
			case "true":
				return true
			case "false":
				return false
			}
		}
		switch s := apiErr.StatusCode; {
		case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests, s >= 500:
			return true
		case s >= 200 && s < 300: // an error event in a stream that began well
			t := string(apiErr.Type())
			return t == "overloaded_error" || t == "api_error" || t == "rate_limit_error"
		}
		return false
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// retryAfter reads the wait an answer asks for: retry-after-ms, else Retry-After in seconds
// or as an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return duration(ms, time.Millisecond), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return duration(s, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t)), true
	}
	return 0, false
}

// duration is n units, or the longest Duration when that is more than a Duration holds (a
// float conversion out of range would give a negative one).
func duration(n float64, unit time.Duration) time.Duration {
	if d := n * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}

// failure is a failed request's error: one line saying what failed and why, wrapping the
// SDK's error (an *sdk.Error for an API error) for errors.As.
type failure struct {
	msg string
	err error
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.err }

// fail describes a failed request in one line: the model and endpoint, what failed (brief),
// and how many attempts were made when more than one.
func (m *Model) fail(err error, attempts int) error {
	msg := "anthropic: " + m.where + ": " + brief(err)
	if attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", attempts)
	}
	return &failure{msg: msg, err: err}
}

// brief says what a failed attempt met: for an API error the status (or that the error came
// in the stream), the error's type, the endpoint's message and what to check for a 401 or 404;
// for a request that got no answer, the transport's error; otherwise the error.
func brief(err error) string {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		var ue *url.Error // its URL is the endpoint's, which the error names already
		if errors.As(err, &ue) {
			return ue.Err.Error()
		}
		return err.Error()
	}
	why := apiErr.Message
	if why == "" {
		why = http.StatusText(apiErr.StatusCode)
	}
	what := "status " + strconv.Itoa(apiErr.StatusCode)
	if apiErr.StatusCode >= 200 && apiErr.StatusCode < 300 {
		what = "error in the stream"
	}
	if t := apiErr.Type(); t != "" {
		what += " (" + string(t) + ")"
	}
	msg := what + ": " + why
	switch apiErr.StatusCode {
	case http.StatusUnauthorized:
		msg += "; check the API key ($ANTHROPIC_API_KEY)"
	case http.StatusNotFound:
		msg += "; check the model name and the base URL"
	}
	return msg
}
