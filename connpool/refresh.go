package connpool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// refreshToken uses refresh at oc's token endpoint for a new token, with the RFC 8707
// resource parameter, which oauth2's own refresh cannot send: the MCP authorization
// specification requires it in every token request, and an authorization server that
// issues tokens per resource would otherwise issue one for no resource, or refuse. The
// client authenticates as oc.Endpoint.AuthStyle says (auto-detect: the header, then the
// body if the server refuses it with invalid_client or 401). A token response without a
// refresh token keeps refresh; one without expires_in gives a token without an expiry.
func refreshToken(ctx context.Context, hc *http.Client, oc *oauth2.Config, refresh, resource string) (*oauth2.Token, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}
	if resource != "" {
		form.Set("resource", resource)
	}
	inHeader := oc.ClientSecret != "" && oc.Endpoint.AuthStyle != oauth2.AuthStyleInParams
	tok, err := postToken(ctx, hc, oc, form, inHeader)
	// RFC 6749 §5.2: a refused client authentication is invalid_client, or a bare 401. Any
	// other error is not retried: the refresh token may have been used up by the first try.
	var te *oauthError
	if inHeader && oc.Endpoint.AuthStyle == oauth2.AuthStyleAutoDetect && errors.As(err, &te) &&
		(te.Code == "invalid_client" || te.Status == http.StatusUnauthorized) {
		tok, err = postToken(ctx, hc, oc, form, false)
	}
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = refresh
	}
	return tok, nil
}

// oauthError is an OAuth error response of a token endpoint (RFC 6749 §5.2).
type oauthError struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *oauthError) Error() string {
	s := fmt.Sprintf("token endpoint: %d %s", e.Status, e.Code)
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// postToken posts form (plus the client's credentials) to oc's token endpoint and reads the
// token it answers.
func postToken(ctx context.Context, hc *http.Client, oc *oauth2.Config, form url.Values, inHeader bool) (*oauth2.Token, error) {
	form = maps.Clone(form) // Set replaces a key's slice: the caller's stays as it was
	if !inHeader {
		form.Set("client_id", oc.ClientID)
		if oc.ClientSecret != "" {
			form.Set("client_secret", oc.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, oc.Endpoint.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if inHeader { // RFC 6749 §2.3.1: each part form-encoded first
		req.SetBasicAuth(url.QueryEscape(oc.ClientID), url.QueryEscape(oc.ClientSecret))
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("token endpoint: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		te := &oauthError{Status: resp.StatusCode}
		if json.Unmarshal(body, te) != nil || te.Code == "" {
			te.Code = http.StatusText(resp.StatusCode)
		}
		return nil, te
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "" && ct != "application/json" {
		return nil, fmt.Errorf("token endpoint: answered %s, want application/json", ct)
	}
	var tr struct {
		AccessToken  string      `json:"access_token"`
		TokenType    string      `json:"token_type"`
		RefreshToken string      `json:"refresh_token"`
		ExpiresIn    json.Number `json:"expires_in"`
		oauthError
	}
	if err := json.Unmarshal(body, &tr); err != nil {
		return nil, fmt.Errorf("token endpoint: %w", err)
	}
	if tr.AccessToken == "" && tr.Code != "" { // an error answered with 200 (GitHub does)
		tr.oauthError.Status = resp.StatusCode
		return nil, &tr.oauthError
	}
	if tr.AccessToken == "" {
		return nil, errors.New("token endpoint: the answer has no access_token")
	}
	tok := &oauth2.Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType, RefreshToken: tr.RefreshToken}
	if secs, err := tr.ExpiresIn.Int64(); err == nil && secs > 0 {
		tok.Expiry = time.Now().Add(time.Duration(secs) * time.Second)
	}
	return tok, nil
}
