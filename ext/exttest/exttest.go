package exttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// Names and URIs that no capability is expected to have. The checks before Close expect them
// to be ext.ErrNotFound; after Close they must be ext.ErrClosed like any other input.
const (
	// UnknownTool is a tool name without a namespace.
	UnknownTool = "exttest-no-such-tool-xyz"
	// UnknownNamespacedTool is a tool name in the "<namespace>__<tool>" form (ext.ToolName),
	// which a capability routing tools to children looks up differently.
	UnknownNamespacedTool = "exttest-no-such-namespace" + ext.ToolSep + "no-such-tool-xyz"
	// UnknownCommand is a command name.
	UnknownCommand = "exttest-no-such-command-xyz"
	// UnknownSkillURI is the SKILL.md of a skill no capability has.
	UnknownSkillURI = "skill://no-such-skill-xyz/SKILL.md"
	// UnknownResourceURI is the default of Options.UnknownResourceURI.
	UnknownResourceURI = "exttest://no-such-resource-xyz"
	// DefaultTimeout is the default of Options.Timeout.
	DefaultTimeout = 10 * time.Second
)

// Inputs that a capability might reject before looking at its state; after Close they too
// must fail with ext.ErrClosed.
const (
	traversalSkillURI   = "skill://no-such-skill-xyz/../../../etc/passwd"
	otherServerSkillURI = "mcp://exttest-no-such-server/skill://no-such-skill-xyz/SKILL.md"
	otherServerURI      = "mcp://exttest-no-such-server/exttest://no-such-resource-xyz"
	unsplittableArgs    = `"unbalanced quote`
)

// concurrentClosers is how many goroutines call Close at once.
const concurrentClosers = 8

// useWorkers is how many goroutines keep calling methods while CloseDuringUse closes.
const useWorkers = 4

// Options tunes TestCapability. A nil *Options means the defaults; TestCapability copies it.
//
// The known-good inputs are optional. When given, the KnownInputs check makes sure they work
// on a new capability, and the checks after Close use them as well as unknown names, since a
// capability may answer a name it knows (from a cache, a static list) before it looks at
// whether it is closed.
type Options struct {
	// Tool is a call that succeeds on a new capability: Tools lists its name and CallTool
	// returns no error (a result with IsError set is fine).
	Tool *ext.ToolCall
	// Command is a command that GetCommand expands without error; ListCommands lists its
	// name (as Name or QualifiedName).
	Command *ext.CommandRequest
	// SkillURI is a skill file that SkillExists reports and ReadSkill reads.
	SkillURI string
	// ResourceURI is a resource that ResourceExists reports and ReadResource reads.
	ResourceURI string
	// Complete is a completion request that Complete answers without error. After Close it is
	// used instead of the default request (a prompt reference to UnknownCommand).
	Complete *ext.CompleteRequest

	// UnknownResourceURI is the resource the checks before Close expect to be not found;
	// empty means UnknownResourceURI.
	UnknownResourceURI string
	// AnyResource says the capability may serve any URI (an upstream MCP server decides), so
	// no URI is known to be absent: the unknown-resource checks are skipped. The unknown
	// resource is still used after Close.
	AnyResource bool
	// Offline skips the checks that need the capability to do its work before Close
	// (UnknownNames, KnownInputs, AfterUseAndClose, CloseConcurrentlyAfterUse,
	// CloseDuringUse), for a capability whose work needs I/O the test does not provide (an
	// MCP server that cannot be reached). The lifecycle checks on an unused capability still
	// run.
	Offline bool

	// Released, when set, is called after each Close that returned nil, including each of the
	// concurrent ones, and returns an error if the capability still holds something it should
	// have given back by then (a pool lease, a process, a watcher).
	Released func(c ext.Capability) error

	// Timeout bounds every call the checks make (its context's deadline) and a Close given a
	// cancelled context; a call that has not returned after twice the timeout is reported as
	// hanging. Zero means DefaultTimeout.
	Timeout time.Duration
}

// TestCapability checks that the capabilities newCap returns keep the lifecycle contract of
// ext.Capability and what their optional ext interfaces promise. It runs one subtest per
// check, each on a new capability made by calling newCap with that subtest's t; newCap may
// call t.Fatal and register t.Cleanup functions, which run when the subtest ends.
//
// The checks (subtest names):
//   - BeforeClose: Name is not empty, Health is not HealthClosed, and Observe's stop function
//     may be called twice.
//   - CloseWithoutUse, CloseTwice: Close returns nil, each time.
//   - CloseConcurrently, CloseConcurrentlyAfterUse: Close from 8 goroutines at once, on an
//     unused and on a used capability; every call returns nil, and when it returns the
//     capability is closed (run under -race).
//   - CloseCancelledContext: Close of an unused capability with a cancelled context returns
//     within Options.Timeout, with nil or an error wrapping context.Canceled; a second Close
//     returns nil.
//   - AfterClose, AfterUseAndClose: after Close, on an unused and on a used capability, Name
//     is unchanged; every method of ToolProvider, Instructor, TurnInstructor, SkillResource,
//     ResourceSource, ResourceTemplateSource, SchemeSource, CommandResource, Completer and
//     ResourceSubscriber returns an error wrapping ext.ErrClosed, whatever its input;
//     HealthReporter reports HealthClosed; ChangeObservable's Observe returns a stop function
//     that may be called twice.
//   - CloseDuringUse: Close while other goroutines call every method; every call returns,
//     nothing panics, and the capability is closed afterwards.
//   - UnknownNames: UnknownTool and UnknownNamespacedTool are ext.ErrNotFound from CallTool,
//     UnknownCommand from GetCommand, UnknownSkillURI from ReadSkill (SkillExists answers
//     false, nil), and Options.UnknownResourceURI from ReadResource (ResourceExists answers
//     false, nil) unless Options.AnyResource.
//   - KnownInputs: the known-good inputs of Options work (skipped when none is given).
//
// Each capability is closed at the end of its check.
func TestCapability(t *testing.T, newCap func(t *testing.T) ext.Capability, opts *Options) {
	t.Helper()
	o := withDefaults(opts)
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if reason := c.skip(&o); reason != "" {
				t.Skip(reason)
			}
			k := &checker{opts: o, report: t, newCap: func() ext.Capability { return newCap(t) }}
			defer k.closeAll()
			c.run(k)
		})
	}
}

func withDefaults(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.UnknownResourceURI == "" {
		o.UnknownResourceURI = UnknownResourceURI
	}
	return o
}

// reporter is the part of *testing.T the checks report through.
type reporter interface {
	Errorf(format string, args ...any)
}

// check is one subtest of TestCapability.
type check struct {
	name string
	// skip returns why the check does not apply to these options, or "".
	skip func(o *Options) string
	run  func(k *checker)
}

func always(*Options) string { return "" }

func needsWork(o *Options) string {
	if o.Offline {
		return "Options.Offline: the capability cannot do its work in this test"
	}
	return ""
}

func needsKnownInputs(o *Options) string {
	if r := needsWork(o); r != "" {
		return r
	}
	if o.Tool == nil && o.Command == nil && o.SkillURI == "" && o.ResourceURI == "" && o.Complete == nil {
		return "no known-good inputs in Options"
	}
	return ""
}

// checks are TestCapability's subtests, in the order they run.
var checks = []check{
	{"BeforeClose", always, (*checker).beforeClose},
	{"CloseWithoutUse", always, (*checker).closeWithoutUse},
	{"CloseTwice", always, (*checker).closeTwice},
	{"CloseConcurrently", always, func(k *checker) { k.closeConcurrently(false) }},
	{"CloseCancelledContext", always, (*checker).closeCancelled},
	{"AfterClose", always, func(k *checker) { k.afterCloseCheck(false) }},
	{"UnknownNames", needsWork, (*checker).unknownNames},
	{"KnownInputs", needsKnownInputs, (*checker).knownInputs},
	{"AfterUseAndClose", needsWork, func(k *checker) { k.afterCloseCheck(true) }},
	{"CloseConcurrentlyAfterUse", needsWork, func(k *checker) { k.closeConcurrently(true) }},
	{"CloseDuringUse", needsWork, (*checker).closeDuringUse},
}

// checker runs checks against capabilities from newCap and reports failures.
type checker struct {
	opts   Options
	report reporter
	newCap func() ext.Capability

	mu       sync.Mutex
	caps     []ext.Capability // every capability made, closed by closeAll
	reported map[string]bool  // failures reported, each once
}

// errorf reports a failure, once: concurrent closers find the same faults.
func (k *checker) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	k.mu.Lock()
	if k.reported == nil {
		k.reported = map[string]bool{}
	}
	dup := k.reported[msg]
	k.reported[msg] = true
	k.mu.Unlock()
	if !dup {
		k.report.Errorf("%s", msg)
	}
}

// fresh returns a new capability, or nil (reported) when newCap returned none.
func (k *checker) fresh() ext.Capability {
	c := k.newCap()
	if c == nil {
		k.errorf("the constructor returned a nil capability")
		return nil
	}
	k.mu.Lock()
	k.caps = append(k.caps, c)
	k.mu.Unlock()
	return c
}

// closeAll closes every capability made; by the contract a capability already closed
// answers nil.
func (k *checker) closeAll() {
	k.mu.Lock()
	caps := k.caps
	k.caps = nil
	k.mu.Unlock()
	for _, c := range caps {
		if err := k.call("Close at the end of the check", c.Close); err != nil && err != errReported {
			k.errorf("Close at the end of the check = %v, want nil", err)
		}
	}
}

// errReported is what call returns for a call that panicked or hung; the failure is already
// reported.
var errReported = errors.New("exttest: failure already reported")

// call runs f with a context bounded by Timeout; see callCtx.
func (k *checker) call(what string, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), k.opts.Timeout)
	defer cancel()
	return k.callCtx(ctx, what, 2*k.opts.Timeout, f)
}

// callCtx runs f(ctx) in its own goroutine and returns its error. A panic, or f not returning
// within limit, is reported and returned as errReported (a hung f is left running).
func (k *checker) callCtx(ctx context.Context, what string, limit time.Duration, f func(ctx context.Context) error) error {
	type result struct {
		err      error
		panicked bool
		value    any
	}
	done := make(chan result, 1)
	go func() {
		r := result{panicked: true}
		defer func() {
			if r.panicked {
				r.value = recover()
			}
			done <- r
		}()
		r.err = f(ctx)
		r.panicked = false
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.panicked {
			k.errorf("%s panicked: %v", what, r.value)
			return errReported
		}
		return r.err
	case <-timer.C:
		k.errorf("%s did not return within %v", what, limit)
		return errReported
	}
}

// describe shows an error, or says there was none.
func describe(err error) string {
	if err == nil {
		return "no error"
	}
	return fmt.Sprintf("%q", err.Error())
}

// probe is one call of a method that does work.
type probe struct {
	what string
	call func(ctx context.Context) error
}

// toolCalls are the calls made of CallTool: unknown names, then the known tool.
func (k *checker) toolCalls() []ext.ToolCall {
	calls := []ext.ToolCall{{Name: UnknownTool}, {Name: UnknownNamespacedTool}}
	if k.opts.Tool != nil {
		calls = append(calls, *k.opts.Tool)
	}
	return calls
}

// commandRequests are the requests made of GetCommand: the unknown command, the known one, and
// a command line that cannot be split (an unbalanced quote).
func (k *checker) commandRequests() []ext.CommandRequest {
	reqs := []ext.CommandRequest{{Name: UnknownCommand}}
	odd := ext.CommandRequest{Name: UnknownCommand, Named: map[string]string{"arguments": unsplittableArgs}}
	if k.opts.Command != nil {
		reqs = append(reqs, *k.opts.Command)
		odd.Name = k.opts.Command.Name
	}
	return append(reqs, odd)
}

// describeRequest names a GetCommand call.
func describeRequest(req ext.CommandRequest) string {
	if args, ok := req.Named["arguments"]; ok && req.Args == nil {
		return fmt.Sprintf("GetCommand(%q, arguments %q)", req.Name, args)
	}
	return fmt.Sprintf("GetCommand(%q)", req.Name)
}

func (k *checker) skillURIs() []string {
	uris := []string{UnknownSkillURI, traversalSkillURI, otherServerSkillURI}
	if k.opts.SkillURI != "" {
		uris = append(uris, k.opts.SkillURI)
	}
	return uris
}

func (k *checker) resourceURIs() []string {
	uris := []string{k.opts.UnknownResourceURI, otherServerURI}
	if k.opts.ResourceURI != "" {
		uris = append(uris, k.opts.ResourceURI)
	}
	return uris
}

func (k *checker) completeRequest() ext.CompleteRequest {
	if k.opts.Complete != nil {
		return *k.opts.Complete
	}
	return ext.CompleteRequest{Ref: ext.CompleteRef{Type: "ref/prompt", Name: UnknownCommand}, Argument: ext.CompleteArgument{Name: "arg"}}
}

// probes lists a call of every method c does work in, for every input the checks use, by the
// ext interfaces c implements.
func (k *checker) probes(c ext.Capability) []probe {
	var ps []probe
	add := func(what string, f func(ctx context.Context) error) { ps = append(ps, probe{what, f}) }
	if tp, ok := c.(ext.ToolProvider); ok {
		add("Tools", func(ctx context.Context) error { _, err := tp.Tools(ctx); return err })
		for _, call := range k.toolCalls() {
			add(fmt.Sprintf("CallTool(%q)", call.Name), func(ctx context.Context) error {
				call := call
				_, err := tp.CallTool(ctx, &call)
				return err
			})
		}
	}
	if in, ok := c.(ext.Instructor); ok {
		add("Instructions", func(ctx context.Context) error { _, err := in.Instructions(ctx); return err })
	}
	if ti, ok := c.(ext.TurnInstructor); ok {
		add("TurnInstructions", func(ctx context.Context) error { _, err := ti.TurnInstructions(ctx, "hello"); return err })
	}
	if sr, ok := c.(ext.SkillResource); ok {
		add("ListSkills", func(ctx context.Context) error { _, err := sr.ListSkills(ctx); return err })
		for _, uri := range k.skillURIs() {
			add(fmt.Sprintf("ReadSkill(%q)", uri), func(ctx context.Context) error { _, err := sr.ReadSkill(ctx, uri); return err })
			add(fmt.Sprintf("SkillExists(%q)", uri), func(ctx context.Context) error { _, err := sr.SkillExists(ctx, uri); return err })
		}
	}
	if rs, ok := c.(ext.ResourceSource); ok {
		add("ListResources", func(ctx context.Context) error { _, err := rs.ListResources(ctx); return err })
		for _, uri := range k.resourceURIs() {
			add(fmt.Sprintf("ReadResource(%q)", uri), func(ctx context.Context) error { _, err := rs.ReadResource(ctx, uri); return err })
			add(fmt.Sprintf("ResourceExists(%q)", uri), func(ctx context.Context) error { _, err := rs.ResourceExists(ctx, uri); return err })
		}
	}
	if ts, ok := c.(ext.ResourceTemplateSource); ok {
		add("ListResourceTemplates", func(ctx context.Context) error { _, err := ts.ListResourceTemplates(ctx); return err })
	}
	if ss, ok := c.(ext.SchemeSource); ok {
		add("ResourceSchemes", func(ctx context.Context) error { _, err := ss.ResourceSchemes(ctx); return err })
	}
	if cr, ok := c.(ext.CommandResource); ok {
		add("ListCommands", func(ctx context.Context) error { _, err := cr.ListCommands(ctx); return err })
		for _, req := range k.commandRequests() {
			add(describeRequest(req), func(ctx context.Context) error {
				req := req
				_, err := cr.GetCommand(ctx, &req)
				return err
			})
		}
	}
	if cp, ok := c.(ext.Completer); ok {
		req := k.completeRequest()
		add(fmt.Sprintf("Complete(%s %q)", req.Ref.Type, req.Ref.Name+req.Ref.URI), func(ctx context.Context) error {
			req := req
			_, err := cp.Complete(ctx, &req)
			return err
		})
	}
	if rs, ok := c.(ext.ResourceSubscriber); ok {
		for _, uri := range k.resourceURIs() {
			add(fmt.Sprintf("SubscribeResource(%q)", uri), func(ctx context.Context) error { return rs.SubscribeResource(ctx, uri) })
			add(fmt.Sprintf("UnsubscribeResource(%q)", uri), func(ctx context.Context) error { return rs.UnsubscribeResource(ctx, uri) })
		}
	}
	return ps
}

// use calls every method of c once, as a user would before closing it. Errors are the
// capability's business here; only panics and hangs are reported.
func (k *checker) use(c ext.Capability) {
	for _, p := range k.probes(c) {
		_ = k.call(p.what+" before Close", p.call)
	}
}

// observe checks that Observe returns a stop function that may be called twice.
func (k *checker) observe(c ext.Capability, when string) {
	obs, ok := c.(ext.ChangeObservable)
	if !ok {
		return
	}
	var stop func()
	if err := k.call(when+", Observe", func(context.Context) error {
		stop = obs.Observe(func(ext.ChangeEvent) {})
		return nil
	}); err != nil {
		return
	}
	if stop == nil {
		k.errorf("%s, Observe returned a nil stop function", when)
		return
	}
	for i := 1; i <= 2; i++ {
		_ = k.call(fmt.Sprintf("%s, stop #%d of Observe", when, i), func(context.Context) error { stop(); return nil })
	}
}

// health returns c's health state, or "" when c reports none (or Health failed, reported).
func (k *checker) health(c ext.Capability, when string) ext.HealthState {
	hr, ok := c.(ext.HealthReporter)
	if !ok {
		return ""
	}
	var h ext.Health
	if err := k.call(when+", Health", func(context.Context) error { h = hr.Health(); return nil }); err != nil {
		return ""
	}
	return h.State
}

// verifyClosed checks c after a Close that returned nil: when says which.
func (k *checker) verifyClosed(c ext.Capability, name, when string) {
	var got string
	if err := k.call(when+", Name", func(context.Context) error { got = c.Name(); return nil }); err == nil && got != name {
		k.errorf("%s, Name = %q, want %q as before Close", when, got, name)
	}
	for _, p := range k.probes(c) {
		err := k.call(when+", "+p.what, p.call)
		if err == errReported {
			continue
		}
		if !errors.Is(err, ext.ErrClosed) {
			k.errorf("%s, %s returned %s, want an error wrapping ext.ErrClosed", when, p.what, describe(err))
		}
	}
	if st := k.health(c, when); st != "" && st != ext.HealthClosed {
		k.errorf("%s, Health().State = %q, want %q", when, st, ext.HealthClosed)
	}
	k.observe(c, when)
	if k.opts.Released != nil {
		if err := k.call(when+", Options.Released", func(context.Context) error { return k.opts.Released(c) }); err != nil && err != errReported {
			k.errorf("%s, the capability still holds something: %v", when, err)
		}
	}
}

// closeOnce closes c and reports an error from it; it reports whether Close returned nil.
func (k *checker) closeOnce(c ext.Capability, what string) bool {
	err := k.call(what, c.Close)
	if err == errReported {
		return false
	}
	if err != nil {
		k.errorf("%s = %v, want nil", what, err)
		return false
	}
	return true
}

func (k *checker) beforeClose() {
	c := k.fresh()
	if c == nil {
		return
	}
	var name string
	if err := k.call("Name", func(context.Context) error { name = c.Name(); return nil }); err == nil && name == "" {
		k.errorf("Name is empty")
	}
	if st := k.health(c, "before Close"); st == ext.HealthClosed {
		k.errorf("before Close, Health().State = %q", st)
	}
	k.observe(c, "before Close")
}

func (k *checker) closeWithoutUse() {
	c := k.fresh()
	if c == nil {
		return
	}
	name := c.Name()
	if k.closeOnce(c, "Close of an unused capability") {
		k.verifyClosed(c, name, "after Close")
	}
}

func (k *checker) closeTwice() {
	c := k.fresh()
	if c == nil {
		return
	}
	name := c.Name()
	first := k.closeOnce(c, "first Close")
	second := k.closeOnce(c, "second Close")
	if first && second {
		k.verifyClosed(c, name, "after a second Close")
	}
}

// closeConcurrently closes c from concurrentClosers goroutines at once; each checks that c is
// closed as soon as its own Close returned, not only once the first caller finished.
func (k *checker) closeConcurrently(used bool) {
	c := k.fresh()
	if c == nil {
		return
	}
	name := c.Name()
	if used {
		k.use(c)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 1; i <= concurrentClosers; i++ {
		wg.Go(func() {
			<-start
			if k.closeOnce(c, fmt.Sprintf("concurrent Close #%d of %d", i, concurrentClosers)) {
				k.verifyClosed(c, name, "after one of concurrent Close calls returned")
			}
		})
	}
	close(start)
	wg.Wait()
}

// closeCancelled closes an unused capability with a context that is already cancelled.
func (k *checker) closeCancelled() {
	c := k.fresh()
	if c == nil {
		return
	}
	name := c.Name()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const what = "Close with a cancelled context"
	err := k.callCtx(ctx, what, k.opts.Timeout, c.Close)
	if err == errReported {
		return
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		k.errorf("%s = %v, want nil or an error wrapping context.Canceled", what, err)
	}
	if k.closeOnce(c, "Close after a "+what) {
		k.verifyClosed(c, name, "after Close")
	}
}

func (k *checker) afterCloseCheck(used bool) {
	c := k.fresh()
	if c == nil {
		return
	}
	name := c.Name()
	when := "after Close"
	if used {
		k.use(c)
		when = "after use and Close"
	}
	if k.closeOnce(c, "Close") {
		k.verifyClosed(c, name, when)
	}
}

// closeDuringUse closes c while useWorkers goroutines call every method of c in a loop.
func (k *checker) closeDuringUse() {
	c := k.fresh()
	if c == nil {
		return
	}
	name := c.Name()
	ps := k.probes(c)
	closed := make(chan struct{})
	var warm, wg sync.WaitGroup
	for range useWorkers {
		warm.Add(1)
		wg.Go(func() {
			for round := 0; ; round++ {
				for _, p := range ps {
					_ = k.call(p.what+" during Close", p.call)
				}
				if round == 0 {
					warm.Done()
				}
				select {
				case <-closed:
					return
				default:
				}
			}
		})
	}
	warm.Wait() // every worker is past its first round: Close meets calls in flight
	ok := k.closeOnce(c, "Close during use")
	close(closed)
	wg.Wait()
	if ok {
		k.verifyClosed(c, name, "after Close during use")
	}
}

// unknownNames checks that names the capability does not have are ext.ErrNotFound.
func (k *checker) unknownNames() {
	c := k.fresh()
	if c == nil {
		return
	}
	if tp, ok := c.(ext.ToolProvider); ok {
		for _, name := range []string{UnknownTool, UnknownNamespacedTool} {
			what := fmt.Sprintf("CallTool(%q)", name)
			err := k.call(what, func(ctx context.Context) error {
				_, err := tp.CallTool(ctx, &ext.ToolCall{Name: name})
				return err
			})
			if err != errReported && !errors.Is(err, ext.ErrNotFound) {
				k.errorf("%s returned %s, want an error wrapping ext.ErrNotFound", what, describe(err))
			}
		}
	}
	if cr, ok := c.(ext.CommandResource); ok {
		what := fmt.Sprintf("GetCommand(%q)", UnknownCommand)
		err := k.call(what, func(ctx context.Context) error {
			_, err := cr.GetCommand(ctx, &ext.CommandRequest{Name: UnknownCommand})
			return err
		})
		if err != errReported && !errors.Is(err, ext.ErrNotFound) {
			k.errorf("%s returned %s, want an error wrapping ext.ErrNotFound", what, describe(err))
		}
	}
	if sr, ok := c.(ext.SkillResource); ok {
		k.unknown("ReadSkill", "SkillExists", UnknownSkillURI,
			func(ctx context.Context) error { _, err := sr.ReadSkill(ctx, UnknownSkillURI); return err },
			func(ctx context.Context) (bool, error) { return sr.SkillExists(ctx, UnknownSkillURI) })
	}
	if rs, ok := c.(ext.ResourceSource); ok && !k.opts.AnyResource {
		uri := k.opts.UnknownResourceURI
		k.unknown("ReadResource", "ResourceExists", uri,
			func(ctx context.Context) error { _, err := rs.ReadResource(ctx, uri); return err },
			func(ctx context.Context) (bool, error) { return rs.ResourceExists(ctx, uri) })
	}
}

// unknown checks a read (ErrNotFound) and an exists check (false, nil) of a URI that is not there.
func (k *checker) unknown(readName, existsName, uri string, read func(context.Context) error, exists func(context.Context) (bool, error)) {
	what := fmt.Sprintf("%s(%q)", readName, uri)
	if err := k.call(what, read); err != errReported && !errors.Is(err, ext.ErrNotFound) {
		k.errorf("%s returned %s, want an error wrapping ext.ErrNotFound", what, describe(err))
	}
	what = fmt.Sprintf("%s(%q)", existsName, uri)
	var found bool
	err := k.call(what, func(ctx context.Context) error {
		var err error
		found, err = exists(ctx)
		return err
	})
	if err != errReported && (err != nil || found) {
		k.errorf("%s = %v, %s; want false, no error", what, found, describe(err))
	}
}

// knownInputs checks that the known-good inputs of Options work, so that using them after
// Close means something.
func (k *checker) knownInputs() {
	c := k.fresh()
	if c == nil {
		return
	}
	o := k.opts
	missing := func(field, iface string) {
		k.errorf("Options.%s is set but the capability is not an ext.%s", field, iface)
	}
	if o.Tool != nil {
		if tp, ok := c.(ext.ToolProvider); !ok {
			missing("Tool", "ToolProvider")
		} else {
			var tools []ext.ToolEntry
			err := k.call("Tools", func(ctx context.Context) error { var err error; tools, err = tp.Tools(ctx); return err })
			if err != nil && err != errReported {
				k.errorf("Tools = %v", err)
			} else if err == nil && !slices.ContainsFunc(tools, func(t ext.ToolEntry) bool { return t.Name == o.Tool.Name }) {
				k.errorf("Tools does not list Options.Tool %q", o.Tool.Name)
			}
			what := fmt.Sprintf("CallTool(%q)", o.Tool.Name)
			if err := k.call(what, func(ctx context.Context) error {
				call := *o.Tool
				_, err := tp.CallTool(ctx, &call)
				return err
			}); err != nil && err != errReported {
				k.errorf("%s = %v, want no error", what, err)
			}
		}
	}
	if o.Command != nil {
		if cr, ok := c.(ext.CommandResource); !ok {
			missing("Command", "CommandResource")
		} else {
			var cmds []ext.CommandEntry
			err := k.call("ListCommands", func(ctx context.Context) error { var err error; cmds, err = cr.ListCommands(ctx); return err })
			if err != nil && err != errReported {
				k.errorf("ListCommands = %v", err)
			} else if err == nil && !slices.ContainsFunc(cmds, func(e ext.CommandEntry) bool {
				return e.Name == o.Command.Name || e.QualifiedName == o.Command.Name
			}) {
				k.errorf("ListCommands does not list Options.Command %q", o.Command.Name)
			}
			what := fmt.Sprintf("GetCommand(%q)", o.Command.Name)
			if err := k.call(what, func(ctx context.Context) error {
				req := *o.Command
				_, err := cr.GetCommand(ctx, &req)
				return err
			}); err != nil && err != errReported {
				k.errorf("%s = %v, want no error", what, err)
			}
		}
	}
	if o.SkillURI != "" {
		if sr, ok := c.(ext.SkillResource); !ok {
			missing("SkillURI", "SkillResource")
		} else {
			k.known("SkillExists", "ReadSkill", o.SkillURI, sr.SkillExists, sr.ReadSkill)
		}
	}
	if o.ResourceURI != "" {
		if rs, ok := c.(ext.ResourceSource); !ok {
			missing("ResourceURI", "ResourceSource")
		} else {
			k.known("ResourceExists", "ReadResource", o.ResourceURI, rs.ResourceExists, rs.ReadResource)
		}
	}
	if o.Complete != nil {
		if cp, ok := c.(ext.Completer); !ok {
			missing("Complete", "Completer")
		} else if err := k.call("Complete", func(ctx context.Context) error {
			req := *o.Complete
			_, err := cp.Complete(ctx, &req)
			return err
		}); err != nil && err != errReported {
			k.errorf("Complete(Options.Complete) = %v, want no error", err)
		}
	}
}

// known checks an exists check (true, nil) and a read (some contents, no error) of a URI that
// is there.
func (k *checker) known(existsName, readName, uri string, exists func(context.Context, string) (bool, error), read func(context.Context, string) ([]ext.ResourceContents, error)) {
	what := fmt.Sprintf("%s(%q)", existsName, uri)
	var found bool
	if err := k.call(what, func(ctx context.Context) error {
		var err error
		found, err = exists(ctx, uri)
		return err
	}); err != errReported && (err != nil || !found) {
		k.errorf("%s = %v, %s; want true, no error", what, found, describe(err))
	}
	what = fmt.Sprintf("%s(%q)", readName, uri)
	var out []ext.ResourceContents
	if err := k.call(what, func(ctx context.Context) error {
		var err error
		out, err = read(ctx, uri)
		return err
	}); err != errReported && (err != nil || len(out) == 0) {
		k.errorf("%s = %d contents, %s; want contents, no error", what, len(out), describe(err))
	}
}
