package decl

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Validate checks s and fills in the type its command or url implies. It returns every
// problem found, joined (nil when none); each problem's message starts with the key it
// concerns, key being s's own key ("mcp_servers.x" gives "mcp_servers.x.retry.calls: …"),
// and the problem has a Key() string method returning that key, so that package config can
// place it in the file. No message holds the URL, nor an env, header or auth value.
func (s *Server) Validate(key string) error {
	var errs []error
	add := func(at, format string, a ...any) { errs = append(errs, keyErrorf(at, format, a...)) }
	if s.Type == "" {
		switch {
		case s.Command != "":
			s.Type = TypeStdio
		case s.URL != "":
			s.Type = TypeStreamableHTTP
		}
	}
	switch s.Type {
	case TypeStdio:
		if s.Command == "" {
			add(key, "stdio server needs a command")
		}
		if s.URL != "" {
			add(key+".url", "url is not used by a stdio server")
		}
		if len(s.Headers) > 0 {
			add(key+".headers", "headers are not used by a stdio server")
		}
		if s.Auth != nil {
			add(key+".auth", "auth is not used by a stdio server")
		}
	case TypeStreamableHTTP, TypeSSE:
		// The URL itself is never printed: it may carry a secret (user info, a query token).
		if s.URL == "" {
			add(key, "%s server needs a url", s.Type)
		} else if u, err := url.Parse(s.URL); err != nil {
			add(key+".url", "not a valid URL: %s", urlProblem(err))
		} else if u.Scheme != "http" && u.Scheme != "https" {
			add(key+".url", "must be an http or https URL, got scheme %q", u.Scheme)
		} else if u.Host == "" {
			add(key+".url", "must be an http or https URL with a host")
		}
		seen := map[string]string{} // canonical name → the first name written for it
		for _, h := range slices.Sorted(maps.Keys(s.Headers)) {
			name := http.CanonicalHeaderKey(h)
			// Keyed by the header's own name, so that package config places it on its line.
			if transportHeaders[name] {
				add(key+".headers."+h, "set by the transport, not by headers")
			}
			// Header names are case-insensitive: only one of the values would be sent.
			if first, ok := seen[name]; ok {
				add(key+".headers."+h, "names the same header as %s", first)
			} else {
				seen[name] = h
			}
		}
		if s.Auth != nil {
			errs = append(errs, s.Auth.Validate(key+".auth"))
			for h := range s.Headers {
				if strings.EqualFold(h, "Authorization") {
					add(key+".headers", "an Authorization header and auth both set: auth sends its own token")
				}
			}
		}
		for _, f := range []struct {
			key  string
			used bool
		}{{"command", s.Command != ""}, {"args", len(s.Args) > 0}, {"env", len(s.Env) > 0},
			{"env_passthrough", len(s.EnvPassthrough) > 0}, {"cwd", s.Cwd != ""}} {
			if f.used {
				add(key+"."+f.key, "%s is not used by a %s server", f.key, s.Type)
			}
		}
	case "":
		add(key, "needs a command (stdio) or a url (streamable-http, sse)")
	default:
		add(key+".type", "unknown type %q (want stdio, streamable-http or sse)", s.Type)
	}
	for i, name := range s.EnvPassthrough {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			add(fmt.Sprintf("%s.env_passthrough[%d]", key, i), "%q is not a variable name", name)
		}
	}
	switch s.Scope {
	case "", ScopePool, ScopeSession:
	default:
		add(key+".scope", "unknown scope %q (want pool or session)", s.Scope)
	}
	switch s.Retry.Calls {
	case "", CallsSafe, CallsAlways, CallsNever:
	default:
		add(key+".retry.calls", "unknown retry.calls %q (want safe, always or never)", s.Retry.Calls)
	}
	if err := ValidHiddenText(s.HiddenText); err != nil {
		add(key+".hidden_text", "%s", err)
	}
	if err := ValidatePins(s.Pins); err != nil {
		add(key+".pins", "%v", err)
	}
	if s.Sandbox != nil {
		if s.Type != TypeStdio && s.Type != "" {
			add(key+".sandbox", "sandbox is only for stdio servers, not %s", s.Type)
		}
		errs = append(errs, s.Sandbox.Validate(key+".sandbox"))
	}
	if s.Permission != nil {
		errs = append(errs, s.Permission.Validate(key+".permission"))
	}
	if s.Retry.Attempts < 0 || s.Retry.Attempts > MaxAttempts {
		// Backoff doubles per attempt: beyond MaxAttempts the delay overflows time.Duration.
		add(key+".retry.attempts", "must be between 0 (the default, %d) and %d, got %d", DefaultAttempts, MaxAttempts, s.Retry.Attempts)
	}
	if s.Retry.Backoff < 0 {
		add(key+".retry.backoff", "must not be negative, got %s", s.Retry.Backoff)
	}
	if s.Timeout < 0 {
		add(key+".timeout", "must not be negative, got %s", s.Timeout)
	}
	if s.StartupTimeout < 0 {
		add(key+".startup_timeout", "must not be negative, got %s", s.StartupTimeout)
	}
	for i, t := range s.Tools {
		at := fmt.Sprintf("%s.tools[%d]", key, i)
		if t.Name == "" {
			add(at, "a tool needs a name")
		}
		if _, err := json.Marshal(t.InputSchema); err != nil {
			add(at+".input_schema", "not representable as JSON: %v", err)
		}
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"allow_tools", s.AllowTools}, {"deny_tools", s.DenyTools}} {
		for i, p := range list.patterns {
			if _, err := path.Match(p, ""); err != nil {
				add(fmt.Sprintf("%s.%s[%d]", key, list.key, i), "bad pattern %q: %v", p, err)
			}
		}
	}
	for _, t := range s.AllowTools {
		if slices.Contains(s.DenyTools, t) {
			add(key+".deny_tools", "tool %q is both allowed and denied", t)
		}
	}
	if errors.Join(errs...) == nil {
		// What could not be put on a command line or a request, said under the server's key.
		if msg := s.unsendable(); msg != "" {
			add(key, "%s", msg)
		}
	}
	return errors.Join(errs...)
}

// transportHeaders are the headers an HTTP server's requests get from their transport, by
// canonical name: the message's framing and the connection's (net/http drops some of them from
// a request's header and sends others beside its own); the content coding net/http asks for
// (it decodes a response only when it asked); and those the SDK's streamable and SSE clients
// set, which a configured header would replace: the session's, the media types sent and
// accepted, and where a resumed stream starts.
var transportHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true, "Te": true,
	"Connection": true, "Keep-Alive": true, "Upgrade": true, "Proxy-Connection": true,
	"Accept-Encoding": true, "Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Accept": true,
	"Content-Type": true, "Last-Event-Id": true,
}

// unsendable returns the first value of s, valid as YAML, that cannot be passed to a process
// or put in an HTTP request (a NUL byte, a malformed env or header name), or "". It assumes the
// rest of Validate found nothing.
func (s *Server) unsendable() string {
	if s.Type == TypeStdio {
		if strings.ContainsRune(s.Command, 0) {
			return "command contains a NUL byte"
		}
		for _, a := range append([]string{s.Cwd}, s.Args...) {
			if strings.ContainsRune(a, 0) {
				return "cwd or argument contains a NUL byte"
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(s.Env[k], 0) {
				return fmt.Sprintf("invalid env entry %q", k)
			}
		}
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if k == "" || strings.ContainsAny(k, " :\r\n\x00") || strings.ContainsAny(s.Headers[k], "\r\n\x00") {
			return fmt.Sprintf("invalid header %q", k)
		}
	}
	return ""
}

// quoted matches a Go-quoted string ("…" with \" escapes), as url.Parse quotes in its messages.
var quoted = regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`)

// urlProblem says what url.Parse found wrong without any piece of the URL: its message
// names the URL, and quotes the part it could not read ("invalid port \":pa\" after host"),
// which for a '/' written as it is in a password is the password's start.
func urlProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // without the URL
	}
	return quoted.ReplaceAllString(err.Error(), "")
}

// keyError is one problem of a key: "<key>: <what>". Key lets package config place it in the
// file without parsing the message.
type keyError struct{ key, msg string }

func keyErrorf(key, format string, a ...any) error {
	return &keyError{key: key, msg: fmt.Sprintf(format, a...)}
}

func (e *keyError) Error() string { return e.key + ": " + e.msg }

// Key returns the key the problem concerns, as in "mcp_servers.x.retry.calls".
func (e *keyError) Key() string { return e.key }

// ValidHiddenText checks a hidden_text value: "", HiddenTextSanitize or HiddenTextBlock.
func ValidHiddenText(v string) error {
	switch v {
	case "", HiddenTextSanitize, HiddenTextBlock:
		return nil
	}
	return fmt.Errorf("unknown hidden_text %q (want sanitize or block)", v)
}

// ValidatePins checks a pin policy: "" (the default), PinsOff, PinsWarn or PinsBlock.
func ValidatePins(p string) error {
	switch p {
	case "", PinsOff, PinsWarn, PinsBlock:
		return nil
	}
	return fmt.Errorf("unknown pin policy %q (want off, warn or block)", p)
}
