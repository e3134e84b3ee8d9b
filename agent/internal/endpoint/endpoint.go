// Package endpoint holds what the model adapters (agent/openai, agent/anthropic) share about
// the endpoint they call.
package endpoint

import (
	"net/url"
	"strings"
)

// Shown is u as errors show it: without its user info (a proxy's credentials, a token as the
// user name), its query's values elided (a key) and no fragment. A u that does not parse is
// "(an unparsable URL)": the parser's own error would quote it whole.
func Shown(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	p.User = nil
	if p.RawQuery != "" {
		parts := strings.Split(p.RawQuery, "&")
		for i, kv := range parts {
			if k, _, named := strings.Cut(kv, "="); named {
				parts[i] = k + "=…"
			} else if kv != "" {
				parts[i] = "…" // a value alone may be the key itself
			}
		}
		p.RawQuery = strings.Join(parts, "&")
	}
	p.Fragment, p.RawFragment = "", ""
	return p.String()
}
