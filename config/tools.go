package config

import (
	"fmt"
	"path"

	"github.com/agentpool/agentpool/exposure"
)

// validateTools returns every problem of a tools key (server.tools, agents.<name>.tools),
// keyed under key.
func validateTools(key string, t *exposure.Config) []error {
	var errs []error
	if !t.Mode.Valid() {
		errs = append(errs, keyErrorf(key+".mode", "want all, search or auto, got %q", t.Mode))
	}
	for i, p := range t.AlwaysOn {
		if _, err := path.Match(p, ""); err != nil {
			errs = append(errs, keyErrorf(fmt.Sprintf("%s.always_on[%d]", key, i), "bad pattern %q: %v", p, err))
		}
	}
	for _, f := range []struct {
		key string
		n   int
	}{{"max_active", t.MaxActive}, {"auto_tools", t.AutoTools}, {"auto_bytes", t.AutoBytes}} {
		if f.n < 0 {
			errs = append(errs, keyErrorf(key+"."+f.key, "must not be negative, got %d", f.n))
		}
	}
	return errs
}
