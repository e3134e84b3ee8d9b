package exttest

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a reporter that keeps the failures, prefixed with the check's name.
type recorder struct {
	mu    sync.Mutex
	check string
	msgs  []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, r.check+": "+fmt.Sprintf(format, args...))
}

// runChecks runs every check that applies to opts (of those named in only, if any) against
// capabilities from newCap, as TestCapability does, and returns the failures.
func runChecks(newCap func() ext.Capability, opts *Options, only ...string) []string {
	o := withDefaults(opts)
	r := &recorder{}
	for _, c := range checks {
		if c.skip(&o) != "" || len(only) > 0 && !slices.Contains(only, c.name) {
			continue
		}
		r.mu.Lock()
		r.check = c.name
		r.mu.Unlock()
		k := &checker{opts: o, report: r, newCap: newCap}
		c.run(k)
		k.closeAll()
	}
	return r.msgs
}

// release returns a channel closed when t ends, ending the fakes' deliberate waits.
func release(t *testing.T) <-chan struct{} {
	ch := make(chan struct{})
	t.Cleanup(func() { close(ch) })
	return ch
}

func TestGoodFakePasses(t *testing.T) {
	rel := release(t)
	if msgs := runChecks(func() ext.Capability { return newFake(faultNone, rel) }, fakeOptions()); len(msgs) > 0 {
		t.Fatalf("a capability keeping the contract failed:\n%s", strings.Join(msgs, "\n"))
	}
}

// TestCapability itself passes a capability that keeps the contract, with and without
// known-good inputs.
func TestCapabilityGoodFake(t *testing.T) {
	rel := release(t)
	TestCapability(t, func(*testing.T) ext.Capability { return newFake(faultNone, rel) }, fakeOptions())
	TestCapability(t, func(*testing.T) ext.Capability { return newFake(faultNone, rel) }, nil)
}

// Each broken fake must fail, with a message naming what broke.
func TestBrokenFakesFail(t *testing.T) {
	// Faults that make a fake wait for something only some checks do run those checks alone.
	only := map[fault][]string{faultCloseReturnsEarly: {"CloseConcurrently"}}
	for _, tc := range []struct {
		name  string
		fault fault
		opts  func(*Options)
		want  []string // substrings of one failure message each
	}{
		{"CachedCallAfterClose", faultCachedCallAfterClose, nil,
			[]string{`AfterClose: after Close, CallTool("echo") returned no error, want an error wrapping ext.ErrClosed`}},
		{"CallToolNilAfterClose", faultCallToolNilAfterClose, nil,
			[]string{`CallTool("exttest-no-such-tool-xyz") returned no error, want an error wrapping ext.ErrClosed`}},
		{"PanicOnSecondClose", faultPanicOnSecondClose, nil,
			[]string{"CloseTwice: second Close panicked: closed twice"}},
		{"UnknownToolPlainError", faultUnknownToolPlainError, nil,
			[]string{`UnknownNames: CallTool("exttest-no-such-tool-xyz") returned "no such tool", want an error wrapping ext.ErrNotFound`,
				`UnknownNames: CallTool("exttest-no-such-namespace__no-such-tool-xyz") returned "no such tool"`}},
		{"UnknownCommandNil", faultUnknownCommandNil, nil,
			[]string{`UnknownNames: GetCommand("exttest-no-such-command-xyz") returned no error, want an error wrapping ext.ErrNotFound`}},
		{"SkillExistsAlways", faultSkillExistsAlways, nil,
			[]string{`UnknownNames: SkillExists("skill://no-such-skill-xyz/SKILL.md") = true, no error; want false, no error`}},
		{"HealthNotClosed", faultHealthNotClosed, nil,
			[]string{`AfterClose: after Close, Health().State = "ok", want "closed"`}},
		{"NilStopAfterClose", faultNilStopAfterClose, nil,
			[]string{"AfterClose: after Close, Observe returned a nil stop function"}},
		{"StopTwicePanics", faultStopTwicePanics, nil,
			[]string{"BeforeClose: before Close, stop #2 of Observe panicked: stopped twice"}},
		{"CloseIgnoresContext", faultCloseIgnoresContext, func(o *Options) { o.Timeout = 100 * time.Millisecond },
			[]string{"CloseCancelledContext: Close with a cancelled context did not return within 100ms"}},
		{"CloseCancelledOtherError", faultCloseCancelledOtherError, nil,
			[]string{"CloseCancelledContext: Close with a cancelled context = close failed, want nil or an error wrapping context.Canceled"}},
		{"CloseReturnsEarly", faultCloseReturnsEarly, nil,
			[]string{"CloseConcurrently: after one of concurrent Close calls returned, Tools returned no error, want an error wrapping ext.ErrClosed"}},
		{"NameAfterClose", faultNameAfterClose, nil,
			[]string{`AfterClose: after Close, Name = "renamed", want "fake" as before Close`}},
		{"TraversalBeforeClosed", faultTraversalBeforeClosed, nil,
			[]string{`AfterClose: after Close, ReadSkill("skill://no-such-skill-xyz/../../../etc/passwd") returned "fake: skill://no-such-skill-xyz/../../../etc/passwd: path traversal"`,
				`AfterClose: after Close, SkillExists("skill://no-such-skill-xyz/../../../etc/passwd") returned no error`}},
		{"UnknownResourcePlainError", faultUnknownResourcePlainError, nil,
			[]string{`UnknownNames: ReadResource("exttest://no-such-resource-xyz") returned "upstream said no", want an error wrapping ext.ErrNotFound`}},
		{"ArgsBeforeClosed", faultArgsBeforeClosed, nil,
			[]string{`AfterClose: after Close, GetCommand("hello", arguments "\"unbalanced quote") returned "unbalanced quote", want an error wrapping ext.ErrClosed`}},
		{"CloseFails", faultCloseFails, nil,
			[]string{"CloseWithoutUse: Close of an unused capability = close failed, want nil",
				"Close at the end of the check = close failed, want nil"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel := release(t)
			opts := fakeOptions()
			if tc.opts != nil {
				tc.opts(opts)
			}
			msgs := runChecks(func() ext.Capability { return newFake(tc.fault, rel) }, opts, only[tc.fault]...)
			if len(msgs) == 0 {
				t.Fatal("the broken capability passed every check")
			}
			for _, want := range tc.want {
				found := false
				for _, m := range msgs {
					if strings.Contains(m, want) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("no failure mentions %q; failures:\n%s", want, strings.Join(msgs, "\n"))
				}
			}
		})
	}
}

// Options that skip checks do: AnyResource leaves unknown resources alone, Offline runs only
// the checks on an unused capability.
func TestOptionsSkip(t *testing.T) {
	rel := release(t)
	opts := fakeOptions()
	opts.AnyResource = true
	if msgs := runChecks(func() ext.Capability { return newFake(faultUnknownResourcePlainError, rel) }, opts); len(msgs) > 0 {
		t.Errorf("AnyResource: the unknown resource was still checked:\n%s", strings.Join(msgs, "\n"))
	}
	opts = fakeOptions()
	opts.Offline = true
	if msgs := runChecks(func() ext.Capability { return newFake(faultUnknownToolPlainError, rel) }, opts); len(msgs) > 0 {
		t.Errorf("Offline: a check needing work still ran:\n%s", strings.Join(msgs, "\n"))
	}
}

// TestCapability fails the test of a broken capability: run in a child process, since a
// failed *testing.T cannot be undone.
func TestCapabilityFailsBrokenCapability(t *testing.T) {
	if os.Getenv("EXTTEST_BROKEN_CHILD") == "1" {
		rel := release(t)
		TestCapability(t, func(*testing.T) ext.Capability { return newFake(faultCachedCallAfterClose, rel) }, fakeOptions())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCapabilityFailsBrokenCapability$", "-test.v")
	cmd.Env = append(os.Environ(), "EXTTEST_BROKEN_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("TestCapability passed a broken capability:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestCapabilityFailsBrokenCapability/AfterUseAndClose",
		`after use and Close, CallTool("echo") returned no error, want an error wrapping ext.ErrClosed`,
		"--- PASS: TestCapabilityFailsBrokenCapability/UnknownNames",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}
