package decl

import (
	"net/url"
	"strings"
)

// redacted stands in for every secret a message would otherwise show.
const redacted = "REDACTED"

// RedactURL returns raw fit for an error or a log line: its user info, every query value and
// its fragment replaced by REDACTED ("https://REDACTED@host/mcp?token=REDACTED"); a query part
// without a value ("?tok", "?tok=", "?tok==") is replaced whole, since it may be a bare token. Scheme, host and path stay, so
// the server can still be told apart; a secret written into the path is not recognised. A URL
// that does not parse is replaced whole.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redacted + " (not a valid URL)"
	}
	if u.User != nil {
		u.User = url.User(redacted)
	}
	if u.RawQuery != "" || u.ForceQuery {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if p == "" {
				continue
			}
			// A key with a value is a name; "tok" of "tok=" or "tok==" is base64 padding.
			if k, v, _ := strings.Cut(p, "="); v != "" && v[0] != '=' {
				parts[i] = k + "=" + redacted
			} else {
				parts[i] = redacted
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = redacted, ""
	}
	return u.String()
}
