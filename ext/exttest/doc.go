// Package exttest checks that an ext.Capability keeps the lifecycle contract written on
// ext.Capability, the way testing/fstest.TestFS checks an fs.FS: every capability kind in the
// tree calls TestCapability from its own tests, and a new kind gets its contract checked by
// calling it once.
//
//	func TestManagerContract(t *testing.T) {
//		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
//			m, err := skill.NewManager(&skill.Options{Roots: []string{t.TempDir()}})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return m
//		}, nil)
//	}
//
// The contract:
//
//   - Close is safe on a capability never used, twice, and concurrently; it returns once the
//     capability is closed or ctx ends.
//   - After Close, every method that does work returns an error wrapping ext.ErrClosed,
//     whatever its inputs; Name still answers.
//   - Before Close, unknown tool, command, skill and resource names are ext.ErrNotFound
//     (SkillExists and ResourceExists answer false), and a ChangeObservable's stop function is
//     idempotent.
//
// Each check runs in a subtest on a new capability from the caller's constructor; every call is
// bounded by Options.Timeout (default 10 s). Rationale: docs/design/exttest.md.
package exttest
