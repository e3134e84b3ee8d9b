package main

import (
	"strings"
	"testing"
)

// compile reports drift a serve recorded earlier and nobody approved: the user reviewing the
// view sees it, though it is not logged again as new.
func TestCompileShowsStandingDrift(t *testing.T) {
	t.Parallel()
	r := newPinRig(t, "warn")
	c := r.serve(t)
	c.tools(t)
	c.drift(t, "describe", func([]string) bool { return strings.Contains(c.stderr.String(), "name=send") })
	c.close(t)
	out := r.run(t, "--config", r.config, "compile")
	if want := `mail: tool "send" changed since it was pinned; review it with agentpool pins list mail`; !strings.Contains(out, want) {
		t.Errorf("compile does not say %q:\n%s", want, out)
	}
	if out := r.run(t, "--config", r.config, "compile", "--json"); !strings.Contains(out, `"pins_drifted"`) || !strings.Contains(out, `tool \"send\" changed since it was pinned`) {
		t.Errorf("compile --json lacks pins_drifted naming send:\n%s", out)
	}
}
