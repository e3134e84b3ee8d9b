package agent

import (
	"context"
	"iter"
)

// EventEnd is the last event of Events: the run ended (End holds its Result).
const EventEnd EventKind = "end"

// Events runs one turn as Run does and yields its events as they happen, each with a nil
// error, then, last, one EventEnd whose End is the run's Result, with the error Run would
// return. The agent's Observer, when set, still receives every event.
//
// The run waits for the loop's body: an event is yielded from the goroutine of the loop,
// never concurrently, and the run's next event waits until the body returns. Breaking out of
// the loop cancels the run and waits for it to end (its tool calls cancelled upstream, its
// turn capabilities closed, StopInterrupted) before the loop statement finishes: nothing of
// the run goes on after it. A panic in the body does the same before it goes on up.
func (a *Agent) Events(ctx context.Context, in *Input) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan Event)
		left := make(chan struct{}) // closed when the loop stops taking events
		type end struct {
			res *Result
			err error
		}
		done := make(chan end, 1)
		run := *a
		run.o.Observer = func(e Event) {
			if a.o.Observer != nil {
				a.o.Observer(e)
			}
			select {
			case events <- e:
			case <-left:
			}
		}
		go func() {
			res, err := run.Run(ctx, in)
			done <- end{res, err}
		}()
		ended := false
		// Breaking out of the loop, or a panic in its body, ends the run before Events returns.
		defer func() {
			if !ended {
				close(left)
				cancel()
				<-done
			}
		}()
		for {
			select {
			case e := <-events:
				if !yield(e, nil) {
					return
				}
			case d := <-done:
				ended = true
				// Every event was taken: the Observer returns only once its event is.
				yield(Event{Kind: EventEnd, Agent: a.o.Scope.AgentName, End: d.res}, d.err)
				return
			}
		}
	}
}
