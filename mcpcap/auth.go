package mcpcap

import (
	"fmt"
	"slices"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
)

// authConfig returns connpool's form of a (nil for nil).
func authConfig(a *decl.Auth) *connpool.OAuthConfig {
	if a == nil {
		return nil
	}
	c := &connpool.OAuthConfig{
		Grant: a.Type, ClientID: a.ClientID, ClientSecret: a.ClientSecret, TokenEndpointAuth: a.TokenEndpointAuth,
		PrivateKeyFile: a.PrivateKeyFile, Scopes: slices.Clone(a.Scopes), ClientMetadataURL: a.ClientMetadataURL,
	}
	if a.RedirectPort != 0 {
		c.RedirectURL = fmt.Sprintf("http://127.0.0.1:%d/callback", a.RedirectPort)
	}
	return c
}
