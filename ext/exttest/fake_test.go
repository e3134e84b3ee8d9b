package exttest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// fault is one way a fake capability breaks the contract.
type fault int

const (
	faultNone fault = iota
	// CallTool of the known tool answers from a cache after Close, with no error.
	faultCachedCallAfterClose
	// CallTool of any tool after Close returns a nil result and no error.
	faultCallToolNilAfterClose
	// The second Close panics.
	faultPanicOnSecondClose
	// An unknown tool is a plain error, not ErrNotFound.
	faultUnknownToolPlainError
	// An unknown command is a nil result and no error.
	faultUnknownCommandNil
	// SkillExists answers true for any URI.
	faultSkillExistsAlways
	// Health stays "ok" after Close.
	faultHealthNotClosed
	// Observe after Close returns a nil stop function.
	faultNilStopAfterClose
	// stop panics when called twice.
	faultStopTwicePanics
	// Close ignores its context and waits for slow work.
	faultCloseIgnoresContext
	// Close returns an error of its own when its context is cancelled.
	faultCloseCancelledOtherError
	// Later concurrent Close calls return at once, before the first has closed.
	faultCloseReturnsEarly
	// Name changes after Close.
	faultNameAfterClose
	// A skill URI with ".." is rejected before the closed check (ErrPathTraversal).
	faultTraversalBeforeClosed
	// ReadResource reports another error than ErrNotFound for an unknown resource.
	faultUnknownResourcePlainError
	// Close never succeeds.
	faultCloseFails
	// GetCommand splits its command line before the closed check.
	faultArgsBeforeClosed
)

// The known-good inputs of the fake.
const (
	fakeTool     = "echo"
	fakeCommand  = "hello"
	fakeSkill    = "skill://demo/SKILL.md"
	fakeResource = "demo://r"
)

// fakeOptions are the Options naming the fake's known-good inputs.
func fakeOptions() *Options {
	return &Options{
		Tool:        &ext.ToolCall{Name: fakeTool},
		Command:     &ext.CommandRequest{Name: fakeCommand},
		SkillURI:    fakeSkill,
		ResourceURI: fakeResource,
		Complete:    &ext.CompleteRequest{Ref: ext.CompleteRef{Type: "ref/prompt", Name: fakeCommand}},
		Timeout:     time.Second,
	}
}

// fake implements every optional interface of ext, correctly unless told to break one rule.
type fake struct {
	ext.Notifier
	fault fault
	// release ends the waits of faultCloseIgnoresContext and faultCloseReturnsEarly.
	release <-chan struct{}

	mu        sync.Mutex
	closing   bool          // a Close has started
	closed    bool          // closed
	done      chan struct{} // closed once closed
	closes    int
	probed    chan struct{} // faultCloseReturnsEarly: a method ran while closing
	probedAt  sync.Once
	later     chan struct{} // faultCloseReturnsEarly: a second Close came
	laterOnce sync.Once
}

var (
	_ ext.ToolProvider           = (*fake)(nil)
	_ ext.Instructor             = (*fake)(nil)
	_ ext.TurnInstructor         = (*fake)(nil)
	_ ext.SkillResource          = (*fake)(nil)
	_ ext.ResourceSource         = (*fake)(nil)
	_ ext.ResourceTemplateSource = (*fake)(nil)
	_ ext.SchemeSource           = (*fake)(nil)
	_ ext.CommandResource        = (*fake)(nil)
	_ ext.Completer              = (*fake)(nil)
	_ ext.ResourceSubscriber     = (*fake)(nil)
	_ ext.HealthReporter         = (*fake)(nil)
	_ ext.ChangeObservable       = (*fake)(nil)
)

func newFake(f fault, release <-chan struct{}) *fake {
	return &fake{fault: f, release: release, done: make(chan struct{}), probed: make(chan struct{}), later: make(chan struct{})}
}

func (f *fake) Name() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fault == faultNameAfterClose && f.closed {
		return "renamed"
	}
	return "fake"
}

func (f *fake) Close(ctx context.Context) (err error) {
	f.mu.Lock()
	f.closes++
	n := f.closes
	first := !f.closing
	f.closing = true
	f.mu.Unlock()
	switch f.fault {
	case faultPanicOnSecondClose:
		if n == 2 {
			panic("closed twice")
		}
	case faultCloseIgnoresContext:
		if ctx.Err() != nil {
			// Slow work that the cancelled context should have cut short.
			select {
			case <-time.After(10 * time.Second):
			case <-f.release:
			}
		}
	case faultCloseCancelledOtherError:
		if ctx.Err() != nil {
			defer func() { err = errors.New("close failed") }()
		}
	case faultCloseReturnsEarly:
		if !first {
			f.laterOnce.Do(func() { close(f.later) })
			return nil // does not wait for the first caller
		}
		// Hold the capability half closed until another Close came and a method ran in that
		// state (the test runs only the concurrent check on this fake).
		for _, ch := range []<-chan struct{}{f.later, f.probed} {
			select {
			case <-ch:
			case <-f.release:
			case <-time.After(10 * time.Second):
			}
		}
	case faultCloseFails:
		return errors.New("close failed")
	}
	if first {
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
		close(f.done)
		return nil
	}
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enter starts a method: it returns ErrClosed after Close.
func (f *fake) enter() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing && !f.closed {
		f.probedAt.Do(func() { close(f.probed) })
	}
	if f.closed {
		return fmt.Errorf("fake: %w", ext.ErrClosed)
	}
	return nil
}

func (f *fake) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

func notFound(what string) error { return fmt.Errorf("fake: %s: %w", what, ext.ErrNotFound) }

func (f *fake) Tools(context.Context) ([]ext.ToolEntry, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	return []ext.ToolEntry{{Name: fakeTool}}, nil
}

func (f *fake) CallTool(_ context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	switch {
	case f.fault == faultCallToolNilAfterClose && f.isClosed():
		return nil, nil
	case f.fault == faultCachedCallAfterClose && call.Name == fakeTool:
		return ext.TextResult("cached"), nil
	}
	if err := f.enter(); err != nil {
		return nil, err
	}
	if call.Name != fakeTool {
		if f.fault == faultUnknownToolPlainError {
			return nil, errors.New("no such tool")
		}
		return nil, notFound("tool " + call.Name)
	}
	return ext.TextResult("echo"), nil
}

func (f *fake) Instructions(context.Context) (ext.Instructions, error) {
	if err := f.enter(); err != nil {
		return ext.Instructions{}, err
	}
	return ext.Instructions{Static: "fake"}, nil
}

func (f *fake) TurnInstructions(context.Context, string) (string, error) {
	if err := f.enter(); err != nil {
		return "", err
	}
	return "", nil
}

func (f *fake) ListSkills(context.Context) ([]ext.SkillEntry, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	return []ext.SkillEntry{{URI: fakeSkill, Name: "demo"}}, nil
}

func (f *fake) ReadSkill(_ context.Context, uri string) ([]ext.ResourceContents, error) {
	if f.fault == faultTraversalBeforeClosed && strings.Contains(uri, "..") {
		return nil, fmt.Errorf("fake: %s: %w", uri, ext.ErrPathTraversal)
	}
	if err := f.enter(); err != nil {
		return nil, err
	}
	if uri != fakeSkill {
		return nil, notFound(uri)
	}
	return []ext.ResourceContents{{URI: uri, Text: "demo"}}, nil
}

func (f *fake) SkillExists(_ context.Context, uri string) (bool, error) {
	if f.fault == faultTraversalBeforeClosed && strings.Contains(uri, "..") {
		return false, nil
	}
	if err := f.enter(); err != nil {
		return false, err
	}
	return uri == fakeSkill || f.fault == faultSkillExistsAlways, nil
}

func (f *fake) ListResources(context.Context) ([]ext.ResourceEntry, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	return []ext.ResourceEntry{{URI: fakeResource}}, nil
}

func (f *fake) ReadResource(_ context.Context, uri string) ([]ext.ResourceContents, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	if uri != fakeResource {
		if f.fault == faultUnknownResourcePlainError {
			return nil, errors.New("upstream said no")
		}
		return nil, notFound(uri)
	}
	return []ext.ResourceContents{{URI: uri, Text: "r"}}, nil
}

func (f *fake) ResourceExists(_ context.Context, uri string) (bool, error) {
	if err := f.enter(); err != nil {
		return false, err
	}
	return uri == fakeResource, nil
}

func (f *fake) ListResourceTemplates(context.Context) ([]ext.ResourceTemplateEntry, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	return nil, nil
}

func (f *fake) ResourceSchemes(context.Context) ([]string, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	return []string{"demo"}, nil
}

func (f *fake) ListCommands(context.Context) ([]ext.CommandEntry, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	return []ext.CommandEntry{{Name: fakeCommand}}, nil
}

func (f *fake) GetCommand(_ context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	if f.fault == faultArgsBeforeClosed && strings.Count(req.Named["arguments"], `"`)%2 == 1 {
		return nil, errors.New("unbalanced quote")
	}
	if err := f.enter(); err != nil {
		return nil, err
	}
	if req.Name != fakeCommand {
		if f.fault == faultUnknownCommandNil {
			return nil, nil
		}
		return nil, notFound("command " + req.Name)
	}
	return ext.UserPrompt("hello"), nil
}

func (f *fake) Complete(context.Context, *ext.CompleteRequest) (*ext.CompleteResult, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	return &ext.CompleteResult{Values: []string{}}, nil
}

func (f *fake) SubscribeResource(context.Context, string) error {
	if err := f.enter(); err != nil {
		return err
	}
	return nil
}

func (f *fake) UnsubscribeResource(context.Context, string) error {
	if err := f.enter(); err != nil {
		return err
	}
	return nil
}

func (f *fake) Health() ext.Health {
	if f.isClosed() && f.fault != faultHealthNotClosed {
		return ext.Health{State: ext.HealthClosed}
	}
	return ext.Health{State: ext.HealthOK}
}

func (f *fake) Observe(fn func(ext.ChangeEvent)) func() {
	if f.fault == faultNilStopAfterClose && f.isClosed() {
		return nil
	}
	stop := f.Notifier.Observe(fn)
	if f.fault != faultStopTwicePanics {
		return stop
	}
	var calls int
	var mu sync.Mutex
	return func() {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n > 1 {
			panic("stopped twice")
		}
		stop()
	}
}
