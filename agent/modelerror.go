package agent

// ModelError is a Run's error when its Model failed (StopError): Err is the Model's own, which
// names what failed, why and what to do; a UI that shows one agent can print Err alone. Its
// text is "agent <name>: model: <Err>".
type ModelError struct {
	Agent string
	Err   error
}

func (e *ModelError) Error() string { return "agent " + e.Agent + ": model: " + e.Err.Error() }

// Unwrap returns Err.
func (e *ModelError) Unwrap() error { return e.Err }
