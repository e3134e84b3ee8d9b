package gateway

import (
	"context"
	"testing"
)

// inFlight names the latest call in flight to a capability, whichever calls landed before.
func TestInFlightIsTheLatest(t *testing.T) {
	type key string
	s := &session{}
	ctxs := make([]context.Context, 4)
	for i := range ctxs {
		ctxs[i] = context.WithValue(context.Background(), key("n"), i)
	}
	owner, other := "cap", "other"
	check := func(want context.Context) {
		t.Helper()
		if got := s.inFlight(owner); got != want {
			t.Fatalf("in flight: %v, want %v", got.Value(key("n")), want.Value(key("n")))
		}
	}
	check(context.Background())
	for _, c := range ctxs {
		s.flight(c, owner)
		check(c)
	}
	s.flight(ctxs[0], other)
	s.landed(ctxs[3], owner) // the latest: the one before it is
	check(ctxs[2])
	s.landed(ctxs[0], owner) // the first
	check(ctxs[2])
	s.landed(ctxs[2], owner)
	check(ctxs[1])
	s.flight(ctxs[3], owner)
	check(ctxs[3])
	s.landed(ctxs[1], owner)
	check(ctxs[3])
	s.landed(ctxs[3], owner)
	check(context.Background())
	if len(s.flights) != 1 || s.inFlight(other) != ctxs[0] {
		t.Fatalf("flights left: %v", s.flights)
	}
}
