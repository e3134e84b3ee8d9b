package ext

// SetSessionCheck installs check, which CheckSession calls. The program that opens sessions
// (registers each session's own capabilities, as package host does) installs one, so that a
// consumer working at the scope of a session that was never opened, or is closed, learns it
// from CheckSession instead of seeing a view without the session's capabilities. Nil removes
// the check. It is safe to call concurrently with CheckSession.
func (r *Registry) SetSessionCheck(check func(sessionID string) error) {
	if check == nil {
		r.sessionCheck.Store(nil)
		return
	}
	r.sessionCheck.Store(&check)
}

// CheckSession returns the error of the check SetSessionCheck installed for sessionID: nil
// when the session may be used (it is open, or nothing of it needs opening), and nil when no
// check is installed.
func (r *Registry) CheckSession(sessionID string) error {
	if f := r.sessionCheck.Load(); f != nil {
		return (*f)(sessionID)
	}
	return nil
}
