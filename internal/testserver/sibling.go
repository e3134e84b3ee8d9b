package testserver

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// sibling is a Go program built once per test process into the faultserver's directory (so
// Build's sweep removes it with the rest).
type sibling struct {
	name, pkg string   // the binary's file name; the package to build
	flags     []string // go build's flags, before the package
	once      sync.Once
	path, err string
}

// build compiles s once and returns its path; a build failure fails t. It is safe for
// concurrent use.
func (s *sibling) build(t testing.TB) string {
	t.Helper()
	path, err := s.make()
	if err != "" {
		t.Fatal(err)
	}
	return path
}

// make is build for callers without a testing.TB: the path, or what went wrong.
func (s *sibling) make() (string, string) {
	fault, err := build()
	if err != "" {
		return "", err
	}
	s.once.Do(func() {
		path := filepath.Join(filepath.Dir(fault), s.name)
		if out, err := exec.Command("go", append(append([]string{"build", "-o", path}, s.flags...), s.pkg)...).CombinedOutput(); err != nil {
			s.err = s.name + ": go build: " + err.Error() + "\n" + string(out)
			return
		}
		s.path = path
	})
	return s.path, s.err
}
