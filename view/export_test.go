package view

import "github.com/agentpool/agentpool/ext"

// SetTestHookRegistrations sets testHookRegistrations until the returned func is called.
func SetTestHookRegistrations(f func(ext.Scope)) (restore func()) {
	testHookRegistrations = f
	return func() { testHookRegistrations = nil }
}
