package ext

import (
	"errors"
	"testing"
)

// TestSessionCheck: CheckSession answers nil until a check is installed, then the check's
// answer, and nil again once it is removed.
func TestSessionCheck(t *testing.T) {
	r := newTestRegistry(t)
	if err := r.CheckSession("s1"); err != nil {
		t.Fatalf("no check installed: %v", err)
	}
	closed := errors.New("not open")
	r.SetSessionCheck(func(id string) error {
		if id == "s1" {
			return closed
		}
		return nil
	})
	if err := r.CheckSession("s1"); !errors.Is(err, closed) {
		t.Errorf("CheckSession(s1) = %v, want the check's error", err)
	}
	if err := r.CheckSession("s2"); err != nil {
		t.Errorf("CheckSession(s2) = %v", err)
	}
	r.SetSessionCheck(nil)
	if err := r.CheckSession("s1"); err != nil {
		t.Errorf("check removed: %v", err)
	}
}
