package gateway

// SetChangeHook makes f run after each change an apply makes to a session's server (an add
// or a remove), until the returned function restores the previous hook. Tests use it to make
// an apply slow.
func SetChangeHook(f func()) (restore func()) {
	prev := testHookChange
	testHookChange = f
	return func() { testHookChange = prev }
}
