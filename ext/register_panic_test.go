package ext

import (
	"context"
	"strings"
	"testing"
)

// panicObserver is a capability whose Observe panics.
type panicObserver struct{}

func (*panicObserver) Name() string                { return "boom" }
func (*panicObserver) Close(context.Context) error { return nil }
func (*panicObserver) Observe(func(ChangeEvent)) func() {
	panic("observe exploded")
}

// TestRegisterObservePanic: a panic in a capability's Observe is returned by Register as an
// error, and the capability is not registered.
func TestRegisterObservePanic(t *testing.T) {
	r := NewRegistry(nil)
	defer r.Close(context.Background())
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Register panicked: %v", p)
			}
		}()
		err = r.Register(&panicObserver{}, LevelPool, Scope{})
	}()
	if err == nil || !strings.Contains(err.Error(), "observe exploded") {
		t.Fatalf("Register = %v; want an error naming the panic", err)
	}
	if got := r.Visible(Scope{}); len(got) != 0 {
		t.Fatalf("Visible = %v; want nothing registered", got)
	}
	// The name is free: a well-behaved capability of the same name registers.
	if err := r.Register(&fakeNamed{name: "boom"}, LevelPool, Scope{}); err != nil {
		t.Fatalf("Register after the panic: %v", err)
	}
}

type fakeNamed struct{ name string }

func (f *fakeNamed) Name() string                { return f.name }
func (f *fakeNamed) Close(context.Context) error { return nil }
