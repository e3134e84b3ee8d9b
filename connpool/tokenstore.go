package connpool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// TokenKey names a user's stored token: the server's name and URL (one name at another URL
// is another server, and needs its own login).
type TokenKey struct {
	Server string
	URL    string
}

// StoredToken is a user's token for one server and what refreshing it needs: the token
// endpoint and the client it was issued to (a dynamically registered client's id and secret
// exist nowhere else). It prints (%v, %#v, slog) without any secret.
type StoredToken struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	TokenURL     string    `json:"token_url"`
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	// AuthStyle is how the client authenticates at TokenURL (oauth2.AuthStyle).
	AuthStyle int `json:"auth_style,omitempty"`
	// Scopes are the scopes the user granted, a step-up's included: a new authorization
	// asks for them again at once.
	Scopes []string `json:"scopes,omitempty"`
	// Resource is the RFC 8707 resource the authorization asked for (from the server's
	// metadata), which a refresh asks for again.
	Resource string `json:"resource,omitempty"`
}

// String describes t without its secrets.
func (t StoredToken) String() string {
	return fmt.Sprintf("token of client %q (expires %s, refresh token: %t)", t.ClientID, t.Expiry.Format(time.RFC3339), t.RefreshToken != "")
}

// GoString is String.
func (t StoredToken) GoString() string { return t.String() }

// LogValue is String.
func (t StoredToken) LogValue() slog.Value { return slog.StringValue(t.String()) }

func (t *StoredToken) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

func (t *StoredToken) config() *oauth2.Config {
	return &oauth2.Config{ClientID: t.ClientID, ClientSecret: t.ClientSecret, Scopes: t.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: oauth2.AuthStyle(t.AuthStyle)}}
}

// TokenStore keeps users' tokens (the authorization code grant's) across clients and runs:
// `agentpool login` saves one, a server started later loads it (Options.Tokens).
// Implementations must be safe for concurrent use.
type TokenStore interface {
	// Load returns the token stored for key, or nil and no error when there is none.
	Load(key TokenKey) (*StoredToken, error)
	// Save stores t for key, replacing any.
	Save(key TokenKey, t *StoredToken) error
}

// FileTokenStore keeps each token in a file of its own under Dir
// ($XDG_CONFIG_HOME/agentpool/tokens for agentpool), readable by its user only: the folder
// 0700, each file 0600, written whole (a temporary file renamed). The files are not
// encrypted: like ~/.ssh and the gh CLI's hosts.yml, their protection is the user's account.
// Load refuses a file that others may read.
type FileTokenStore struct {
	Dir string
}

var _ TokenStore = (*FileTokenStore)(nil)

// maxTokenFile bounds a stored token's file.
const maxTokenFile = 64 << 10

// path returns the file of key: the server's name (what is safe of it in a file name) and a
// hash of its URL.
func (s *FileTokenStore) path(key TokenKey) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, key.Server)
	sum := sha256.Sum256([]byte(key.URL))
	return filepath.Join(s.Dir, strings.TrimLeft(name, ".")+"-"+hex.EncodeToString(sum[:8])+".json")
}

// Load implements TokenStore.
func (s *FileTokenStore) Load(key TokenKey) (*StoredToken, error) {
	path := s.path(key)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("token file %s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("token file %s has mode %v: others may read it; chmod 600 it, or log in again", path, fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxTokenFile {
		return nil, fmt.Errorf("token file %s exceeds %d bytes", path, maxTokenFile)
	}
	var t StoredToken
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("token file %s: not a stored token", path) // the parse error could quote the file
	}
	return &t, nil
}

// Save implements TokenStore.
func (s *FileTokenStore) Save(key TokenKey, t *StoredToken) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(s.Dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, ".token-*") // 0600
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path(key))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save token of %s: %w", key.Server, err)
	}
	return nil
}
