package decl

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// OAuth grants, the values of Auth.Type.
const (
	// GrantClientCredentials is the client credentials grant (RFC 6749 §4.4, the MCP
	// ext-auth SEP-1046): machine to machine, no user.
	GrantClientCredentials = "client_credentials"
	// GrantAuthorizationCode is the authorization code grant with PKCE, the user authorizing
	// in a browser (agentpool login).
	GrantAuthorizationCode = "authorization_code"
)

// Token endpoint authentication methods, the values of Auth.TokenEndpointAuth (RFC 7591 §2
// names).
const (
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"
	AuthPrivateKeyJWT     = "private_key_jwt"
	AuthNone              = "none"
)

// DefaultRedirectPort is the port of the authorization code grant's loopback redirect when
// Auth.RedirectPort is zero.
const DefaultRedirectPort = 33418

// Auth is the auth key of an HTTP server: agentpool as the server's OAuth client. Endpoints
// are discovered from the server, so none is declared.
//
//	auth:
//	  type: client_credentials          # or authorization_code
//	  client_id: agentpool
//	  client_secret: ${API_SECRET}
//	  token_endpoint_auth: client_secret_basic   # client_secret_post, private_key_jwt (+ private_key_file), none
//	  scopes: [read]                    # when the server names none
//	  redirect_port: 33418              # authorization_code: the loopback redirect's port
//	  client_metadata_url: https://example.com/agentpool.json   # authorization_code: a client ID metadata document
type Auth struct {
	// Type is the grant: GrantClientCredentials (machine to machine) or
	// GrantAuthorizationCode (a user authorizes in a browser: agentpool login).
	Type string `yaml:"type" json:"type"`
	// ClientID and ClientSecret are a pre-registered client; for authorization_code both may
	// be left out, and the client registers itself (client_metadata_url, else dynamic
	// registration).
	ClientID     string `yaml:"client_id" json:"client_id,omitempty" config:"expand"`
	ClientSecret string `yaml:"client_secret" json:"client_secret,omitempty" config:"expand"`
	// TokenEndpointAuth is client_secret_basic, client_secret_post, private_key_jwt or none;
	// empty chooses from what the authorization server supports.
	TokenEndpointAuth string `yaml:"token_endpoint_auth" json:"token_endpoint_auth,omitempty"`
	// PrivateKeyFile is the PEM key that signs private_key_jwt assertions.
	PrivateKeyFile string `yaml:"private_key_file" json:"private_key_file,omitempty" config:"expand,path"`
	// Scopes are asked for when neither the server's challenge nor its metadata names any.
	Scopes []string `yaml:"scopes" json:"scopes,omitempty"`
	// RedirectPort is the port of the authorization code grant's loopback redirect
	// (http://127.0.0.1:PORT/callback); zero means DefaultRedirectPort.
	RedirectPort int `yaml:"redirect_port" json:"redirect_port,omitempty"`
	// ClientMetadataURL is the https URL of a client ID metadata document naming this client.
	ClientMetadataURL string `yaml:"client_metadata_url" json:"client_metadata_url,omitempty" config:"expand"`
}

// RedirectURL is the loopback redirect of the authorization code grant:
// http://127.0.0.1:PORT/callback, PORT being RedirectPort or DefaultRedirectPort.
func (a *Auth) RedirectURL() string {
	port := a.RedirectPort
	if port == 0 {
		port = DefaultRedirectPort
	}
	return fmt.Sprintf("http://127.0.0.1:%d/callback", port)
}

// Validate returns every problem of a, each keyed under key (the auth key itself).
func (a *Auth) Validate(key string) error {
	var errs []error
	add := func(at, format string, args ...any) { errs = append(errs, keyErrorf(key+at, format, args...)) }
	methods := []string{AuthClientSecretBasic, AuthClientSecretPost, AuthPrivateKeyJWT, AuthNone}
	if a.TokenEndpointAuth != "" && !slices.Contains(methods, a.TokenEndpointAuth) {
		add(".token_endpoint_auth", "unknown method %q (want %s)", a.TokenEndpointAuth, strings.Join(methods, ", "))
	}
	switch a.Type {
	case GrantClientCredentials:
		if a.ClientID == "" {
			add(".client_id", "client_credentials needs a client_id")
		}
		if a.ClientSecret == "" && a.TokenEndpointAuth != AuthPrivateKeyJWT {
			add(".client_secret", "client_credentials needs a client_secret (or token_endpoint_auth: private_key_jwt)")
		}
		if a.TokenEndpointAuth == AuthNone {
			add(".token_endpoint_auth", "client_credentials needs client authentication, not none")
		}
		if a.RedirectPort != 0 {
			add(".redirect_port", "is used by authorization_code only")
		}
		if a.ClientMetadataURL != "" {
			add(".client_metadata_url", "is used by authorization_code only")
		}
	case GrantAuthorizationCode:
		if a.ClientSecret != "" && a.ClientID == "" {
			add(".client_secret", "a client_secret needs its client_id")
		}
		if a.TokenEndpointAuth == AuthPrivateKeyJWT {
			add(".token_endpoint_auth", "private_key_jwt is supported for client_credentials only")
		}
		if a.RedirectPort < 0 || a.RedirectPort > 65535 {
			add(".redirect_port", "must be a port number (1 to 65535; 0 for the default), got %d", a.RedirectPort)
		}
		if a.ClientMetadataURL != "" {
			if u, err := url.Parse(a.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
				add(".client_metadata_url", "must be an https URL with a path")
			}
		}
	case "":
		add(".type", "needs a type: %s or %s", GrantClientCredentials, GrantAuthorizationCode)
	default:
		add(".type", "unknown type %q (want %s or %s)", a.Type, GrantClientCredentials, GrantAuthorizationCode)
	}
	switch {
	case a.TokenEndpointAuth == AuthPrivateKeyJWT && a.PrivateKeyFile == "":
		add(".private_key_file", "private_key_jwt needs a private_key_file")
	case a.PrivateKeyFile != "" && a.TokenEndpointAuth != AuthPrivateKeyJWT:
		add(".private_key_file", "is used by token_endpoint_auth: private_key_jwt only")
	}
	return errors.Join(errs...)
}
