package agent

import (
	"context"
	"fmt"
	"time"
)

// retryKey keys the run's report of a retry in the context a Model is called with.
type retryKey struct{}

// Retrying, called by a Model inside Generate or Stream, reports that the request is retried
// after wait because of err; attempt is the attempt that failed, counting from 1. The run's
// Observer gets an EventRetry. Outside a run, or in a run without an Observer, it does nothing.
func Retrying(ctx context.Context, attempt int, wait time.Duration, err error) {
	RetryingOf(ctx, attempt, 0, wait, err)
}

// RetryingOf is Retrying for a Model that knows how many attempts it makes in all (attempts;
// 0: unknown), which the event then says: "…; retrying in 3s (attempt 2 of 4)".
func RetryingOf(ctx context.Context, attempt, attempts int, wait time.Duration, err error) {
	report, ok := ctx.Value(retryKey{}).(func(string))
	if !ok {
		return
	}
	what := "the request failed"
	if err != nil {
		what = err.Error()
	}
	next := fmt.Sprintf("attempt %d", attempt+1)
	if attempts > 0 {
		next += fmt.Sprintf(" of %d", attempts)
	}
	report(fmt.Sprintf("%s; retrying in %s (%s)", what, wait.Round(time.Millisecond), next))
}

// withRetryReport returns ctx carrying report, which Retrying calls.
func withRetryReport(ctx context.Context, report func(text string)) context.Context {
	return context.WithValue(ctx, retryKey{}, report)
}
