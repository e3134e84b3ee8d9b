package ext

import "errors"

// LimitError is a cap reached: Key is the cap's config key (such as
// "pool.max_session_processes") and Err says what was counted. It matches ErrLimit and Err
// with errors.Is; its message is Err's, which names Key.
type LimitError struct {
	Key string
	Err error
}

func (e *LimitError) Error() string   { return e.Err.Error() }
func (e *LimitError) Unwrap() []error { return []error{e.Err, ErrLimit} }

// LimitKey returns the config key of the cap err reports reached, and whether it reports one:
// err is or wraps a *LimitError, or an error with a method LimitKey() string, which is how a
// package that does not import ext (connpool) marks its caps' errors.
func LimitKey(err error) (string, bool) {
	if le, ok := errors.AsType[*LimitError](err); ok {
		return le.Key, true
	}
	if k, ok := errors.AsType[interface {
		error
		LimitKey() string
	}](err); ok {
		return k.LimitKey(), true
	}
	return "", false
}
