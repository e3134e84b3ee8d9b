// Package exttest checks that an ext.Capability keeps the lifecycle contract written on
// ext.Capability, the way testing/fstest.TestFS checks an fs.FS and OpenTelemetry's generated
// lifecycle tests check a component: every capability kind in the tree calls TestCapability
// from its own package tests, and a new kind gets its contract checked by calling it once.
//
// The contract (see ext.Capability):
//   - Close releases what the capability holds. It is safe on a capability never used, twice,
//     and concurrently; every call returns once the capability is closed or ctx ends (then
//     with ctx's error).
//   - After Close, every method that does work returns an error wrapping ext.ErrClosed; Name
//     still answers.
//
// TestCapability also checks what the optional interfaces promise before Close: unknown tool,
// command, skill and resource names are ext.ErrNotFound (SkillExists and ResourceExists answer
// false), and a ChangeObservable's stop function is idempotent.
//
// Decisions:
//   - Every check runs on a capability of its own, made by the caller's constructor in the
//     check's subtest, so the caller's t.Cleanup closes whatever the constructor started
//     (servers, pools) when that subtest ends. TestCapability closes each capability itself
//     too: a second Close is part of the contract.
//   - Which methods are checked is found by type assertion on the interfaces of package ext,
//     as the registry finds them. Methods outside those interfaces (a Reload, a Status) are
//     the capability's own tests' business.
//   - After Close the inputs must not matter: a method is called with unknown names, with the
//     known-good inputs of Options (a capability may answer a known name from a cache before
//     looking at its state), and with inputs a capability might reject before doing any work (a
//     skill path with "..", an mcp:// URI naming another server, a command line with an
//     unbalanced quote). Each must fail with ext.ErrClosed, never with another error and never
//     with none.
//   - Every call runs in its own goroutine with a context bounded by Options.Timeout: a call
//     that panics is reported as a failure of that call, one that does not return within
//     twice the timeout as a hang, so one broken method does not hang the test binary.
//   - "Returns promptly" is a bound (Options.Timeout, 10 s by default), not a measurement: a
//     Close given a cancelled context must not wait for anything that context should have cut
//     short. There are no timed assertions finer than that.
//   - The checks are plain functions reporting through a small interface, not a *testing.T,
//     so the package tests itself with deliberately broken capabilities (see exttest_test.go).
package exttest
