// Package authredirect plays the user's part of an OAuth authorization code grant where no
// user is needed: an authorization server (a test's, the conformance suite's) that redirects
// at once with the code. It is a leaf of the go-sdk's auth package and the standard library,
// so that programs (the conformance client) and test helpers share it.
package authredirect

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Follow asks for authURL and reads the code, state and iss of the redirect it is answered
// with, without following it. Its signature is connpool.Options.AuthorizeUser's.
func Follow(ctx context.Context, server, authURL string) (*auth.AuthorizationResult, error) {
	return Over(nil)(ctx, server, authURL)
}

// Over returns Follow making its request over rt (http.DefaultTransport when nil): an
// authorization server served in memory, say.
func Over(rt http.RoundTripper) func(ctx context.Context, server, authURL string) (*auth.AuthorizationResult, error) {
	return func(ctx context.Context, _, authURL string) (*auth.AuthorizationResult, error) {
		return follow(ctx, rt, authURL)
	}
}

func follow(ctx context.Context, rt http.RoundTripper, authURL string) (*auth.AuthorizationResult, error) {
	hc := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.String() == "" {
		return nil, fmt.Errorf("authorization answered HTTP %d without a redirect", resp.StatusCode)
	}
	q := loc.Query()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
