package acp

// SetTestHookEnding makes f run as a session's end begins, until restore is called.
func SetTestHookEnding(f func()) (restore func()) {
	testHookEnding = f
	return func() { testHookEnding = nil }
}
